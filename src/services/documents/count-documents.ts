/** How many of a KB's documents are in each ingestion state (the dashboard's "n of N ready" bar). */
import type { ServiceContext } from '../../context';
import { requireKb } from '../kbs/require-kb';
import { authorize } from '../access/roles';

export async function countDocumentsByStatus(ctx: ServiceContext, kbId: string) {
  authorize(ctx, 'content.read');
  const kb = await requireKb(ctx, kbId);
  const rows = await ctx.db
    .selectFrom('documents')
    .select((eb) => ['status', eb.fn.countAll<string>().as('n')])
    .where('kb_id', '=', kb.id)
    .groupBy('status')
    .execute();
  const counts = { processing: 0, ready: 0, failed: 0 };
  for (const r of rows) counts[r.status] = Number(r.n);
  return counts;
}
