/**
 * How long an organisation's chunk texts are, for pricing reads by the bytes they will return
 * (src/http/read-cost.ts): a KB of 400-character chunks and one of 4,000-character chunks differ
 * tenfold in what `chunks(first: 200) { text }` reads. Sampled (at most SAMPLE chunks of each KB)
 * and kept a minute per organisation, so pricing costs one small query a minute, not one per request.
 * The organisation's longest-chunked KB sets the price: a read may be of any of its KBs, and one
 * sample of the whole organisation is mostly its oldest KB (a small KB of short chunks made a read of
 * a 20,000-chunk KB of long ones look a third of its size, and it ran before being refused).
 */
import { sql } from 'kysely';
import type { ServiceContext } from '../../context';

/** What a chunk is assumed to hold before the organisation has any. */
export const DEFAULT_CHUNK_CHARS = 1000;
const SAMPLE = 100;
const TTL_MS = 60_000;
const cache = new Map<string, { chars: number; at: number }>();

export async function averageChunkChars(ctx: Pick<ServiceContext, 'db' | 'org'>): Promise<number> {
  const hit = cache.get(ctx.org.id);
  if (hit && Date.now() - hit.at < TTL_MS) return hit.chars;
  const { rows } = await sql<{ avg: string | null }>`
    select max(s.avg) as avg from knowledge_bases kb
    cross join lateral (select avg(length(c.text)) as avg from (select text from chunks where kb_id = kb.id limit ${SAMPLE}) c) s
    where kb.org_id = ${ctx.org.id}`.execute(ctx.db);
  const chars = rows[0]?.avg ? Math.max(1, Math.round(Number(rows[0].avg))) : DEFAULT_CHUNK_CHARS;
  if (cache.size > 10_000) cache.clear();
  cache.set(ctx.org.id, { chars, at: Date.now() });
  return chars;
}
