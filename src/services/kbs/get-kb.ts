import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { parseInput } from '../../validation';
import { toKbDto, type KbDto } from './kb-dto';
import { requireKb } from './require-kb';
import { authorize } from '../access/roles';

export const ZKbRef = z.object({ id: z.string().min(1) }).strict();

export async function getKb(ctx: ServiceContext, rawInput: z.input<typeof ZKbRef>): Promise<{ kb: KbDto }> {
  authorize(ctx, 'content.read');
  const { id } = parseInput(ZKbRef, rawInput);
  const kb = await requireKb(ctx, id);
  const { count } = await ctx.db
    .selectFrom('documents')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('kb_id', '=', kb.id)
    .executeTakeFirstOrThrow();
  return { kb: toKbDto(kb, count) };
}
