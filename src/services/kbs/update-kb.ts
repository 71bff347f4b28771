import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { parseInput } from '../../validation';
import { getKb } from './get-kb';
import type { KbDto } from './kb-dto';
import { requireKb } from './require-kb';
import { authorize } from '../access/roles';
import { recordAudit } from '../audit/record-audit';

export const ZUpdateKbInput = z
  .object({
    id: z.string().min(1),
    name: z.string().trim().min(1, 'must not be empty').max(200).optional(),
    description: z.string().max(5000).nullable().optional(),
    widget_enabled: z.boolean().optional(),
  })
  .strict();
export type UpdateKbInput = z.input<typeof ZUpdateKbInput>;

export async function updateKb(ctx: ServiceContext, rawInput: UpdateKbInput): Promise<{ kb: KbDto }> {
  authorize(ctx, 'kb.update');
  const { id, ...changes } = parseInput(ZUpdateKbInput, rawInput);
  const kb = await requireKb(ctx, id);
  if (Object.keys(changes).length > 0) {
    await ctx.db
      .updateTable('knowledge_bases')
      .set({ ...changes, updated_at: new Date() })
      .where('id', '=', kb.id)
      .where('org_id', '=', ctx.org.id)
      .execute();
    const before = Object.fromEntries(Object.keys(changes).map((k) => [k, kb[k as keyof typeof changes]]));
    await recordAudit(ctx, { action: 'kb.update', targetType: 'knowledge_base', targetId: kb.id, changes: { before, after: changes } });
  }
  return getKb(ctx, { id: kb.id });
}
