/**
 * Creates a knowledge base within the organisation's plan limit. The count and the insert run under
 * the organisation's row lock, so concurrent creates cannot both slip under the limit.
 */
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { AppError } from '../../errors';
import { newId } from '../../ids';
import { parseInput } from '../../validation';
import { lockOrg } from '../orgs/lock-org';
import { planLimits } from '../plans';
import { toKbDto, type KbDto } from './kb-dto';
import { authorize } from '../access/roles';
import { recordAudit } from '../audit/record-audit';

export const ZCreateKbInput = z
  .object({
    name: z.string().trim().min(1, 'must not be empty').max(200),
    description: z.string().max(5000).optional(),
  })
  .strict();
export type CreateKbInput = z.input<typeof ZCreateKbInput>;

export async function createKb(ctx: ServiceContext, rawInput: CreateKbInput): Promise<{ kb: KbDto }> {
  authorize(ctx, 'kb.create');
  const input = parseInput(ZCreateKbInput, rawInput);
  return ctx.db.transaction().execute(async (trx) => {
    const org = await lockOrg(trx, ctx.org.id);
    const limit = planLimits(org.plan).maxKnowledgeBases;
    const { count } = await trx
      .selectFrom('knowledge_bases')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('org_id', '=', org.id)
      .executeTakeFirstOrThrow();
    if (count >= limit) {
      throw new AppError(
        'plan_limit_exceeded',
        `The ${org.plan} plan allows ${limit} knowledge base${limit === 1 ? '' : 's'}; delete one or upgrade the plan`,
        { limit, plan: org.plan },
      );
    }
    const kb = await trx
      .insertInto('knowledge_bases')
      .values({
        id: newId('kb'),
        org_id: org.id,
        name: input.name,
        description: input.description ?? null,
        embedding_model: ctx.embeddings.default.id,
        embedding_dimensions: ctx.embeddings.default.dimensions,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit({ ...ctx, db: trx }, { action: 'kb.create', targetType: 'knowledge_base', targetId: kb.id, changes: { name: kb.name, description: kb.description } });
    ctx.logger.info({ kbId: kb.id }, 'knowledge base created');
    return { kb: toKbDto(kb, 0) };
  });
}
