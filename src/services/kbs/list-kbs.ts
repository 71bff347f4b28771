/** Lists the organisation's knowledge bases with their document counts, oldest first. */
import { sql } from 'kysely';
import type { ServiceContext } from '../../context';
import { toKbDto, type KbDto } from './kb-dto';
import { withOrgRead } from '../org-share';
import { authorize } from '../access/roles';

async function listKbsNow(ctx: ServiceContext): Promise<{ kbs: KbDto[] }> {
  const rows = await ctx.db
    .selectFrom('knowledge_bases as kb')
    .selectAll('kb')
    .select(sql<number>`(select count(*)::int from documents d where d.kb_id = kb.id)`.as('doc_count'))
    .where('kb.org_id', '=', ctx.org.id)
    .orderBy('kb.created_at')
    .orderBy('kb.id')
    .execute();
  return { kbs: rows.map(({ doc_count, ...kb }) => toKbDto(kb, doc_count)) };
}

/** In the organisation's read line (src/services/org-share.ts): a fanned-out read holds two connections at most. */
export function listKbs(ctx: ServiceContext) {
  authorize(ctx, 'content.read');
  return withOrgRead(ctx, () => listKbsNow(ctx));
}
