/**
 * How many of the exact nearest 30 passages the HNSW index returns, and in how long, at several
 * search breadths (`hnsw.ef_search`), over the reports bench's FinanceBench KB (26,000 passages)
 * restored from its snapshot. The exact list orders by an expression the index cannot serve; both
 * read only indexed rows (`not vector_pending`, the HNSW index's predicate), as retrieval's index
 * side does, or the planner could not use the index at all.
 *
 *   npm run bench -- vector-recall [--names real|opaque] [--ef 30,60,100,200]
 */
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { vectorParam } from '../db/vector-param';
import type { KbId } from '../src/ids';
import { openBenchRuntime } from './lib/bench-runtime';
import { restoreFinanceBench } from './lib/financebench-snapshot';

const { values } = parseArgs({ options: { names: { type: 'string', default: 'real' }, ef: { type: 'string', default: '30,60,100,200' } } });
const LIMIT = 30;
const rt = await openBenchRuntime('postgres');
try {
  const { kb, questions } = await restoreFinanceBench(rt, values.names as 'real' | 'opaque');
  const provider = rt.deps.embeddings.get(kb.embedding_model);
  if (!provider) throw new Error(`no embedding provider for ${kb.embedding_model}`);
  const vectors = await Promise.all(questions.map((q) => provider.embedQuery(q.question)));
  const nearest = (kbId: KbId, v: Float32Array, ef: number, exact: boolean) =>
    rt.deps.db.connection().execute(async (c) => {
      await sql.raw(`set hnsw.ef_search = ${Math.trunc(ef)}`).execute(c);
      const dims = sql.raw(String(v.length));
      const distance = sql`c.embedding::vector(${dims}) <=> ${vectorParam(v)}::vector(${dims})`;
      const started = performance.now();
      const { rows } = await sql<{ id: string }>`
        select c.id from chunks c
        where c.kb_id = ${sql.lit(kbId)} and c.embedding_dimensions = ${dims} and c.disabled_at is null and not c.vector_pending
        order by ${exact ? sql`(${distance}) + 0` : distance} limit ${sql.lit(LIMIT)}`.execute(c);
      return { ids: rows.map((r) => r.id), ms: performance.now() - started };
    });
  const exact = await Promise.all(vectors.map(async (v) => new Set((await nearest(kb.id, v, 40, true)).ids)));
  for (const ef of values.ef.split(',').map(Number)) {
    let recall = 0;
    const ms: number[] = [];
    for (const [i, v] of vectors.entries()) {
      const got = await nearest(kb.id, v, ef, false);
      ms.push(got.ms);
      recall += got.ids.filter((id) => exact[i]!.has(id)).length / LIMIT;
    }
    ms.sort((a, b) => a - b);
    const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!.toFixed(1);
    console.log(`ef_search ${ef}: recall@${LIMIT} ${(recall / vectors.length).toFixed(3)}, query ms median ${at(0.5)}, p90 ${at(0.9)}`);
  }
} finally {
  await rt.close();
}
