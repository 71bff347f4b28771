/**
 * The BM25 candidate stage at scale, in a kept search-bench KB (`npm run bench -- search --keep DIR
 * --chunks N`): per question (1,000 SQuAD questions), how many chunks hold its generator terms
 * (lexical-search.ts) and so get scored, and whether a gold answer is in the top 5 retrieved.
 *   npm run bench -- candidates-at-scale DIR N
 */
import { sql } from 'kysely';
import type { KbId } from '../src/ids';
import { candidateSql, lexicalQuery } from '../src/answering/retrieval/lexical-search';
import { retrieve } from '../src/answering/retrieval/retrieve';
import { startKeptCluster } from '../test/infra/postgres-cluster';
import { openBenchRuntime } from './lib/bench-runtime';
import { containsAnswer, everyKth, loadSquad } from './lib/squad';

const [dir, chunks] = process.argv.slice(2);
if (!dir || !chunks || !/^\d+$/.test(chunks)) {
  process.stderr.write('usage: npm run bench -- candidates-at-scale DIR N (a KB kept by `npm run bench -- search --keep DIR --chunks N`)\n');
  process.exit(2);
}
const cluster = await startKeptCluster(dir);
const url = new URL(cluster.url);
url.pathname = `/search_${chunks}`;
const rt = await openBenchRuntime('postgres', {}, { url: url.toString() });
try {
  const { kb_id } = (await sql<{ kb_id: string }>`select kb_id from bench_search_build`.execute(rt.deps.db)).rows[0]!;
  const kb = await rt.deps.db.selectFrom('knowledge_bases').selectAll().where('id', '=', kb_id as KbId).executeTakeFirstOrThrow();
  const counts: number[] = [];
  let together = 0;
  let answered = 0;
  const questions = everyKth(loadSquad().questions, 1000);
  for (const q of questions) {
    const { chunks: top } = await retrieve(rt.deps, kb, q.question, { topK: 5 });
    if (top.some((c) => containsAnswer(c.text, q.answers))) answered++;
    const lex = await lexicalQuery(rt.deps.db, kb.id, q.question, null);
    if (!lex) continue;
    const { n } = (await sql<{ n: number }>`select count(*)::int as n from chunks c where c.kb_id = ${kb.id} and ${candidateSql(lex, 'c')}`.execute(rt.deps.db)).rows[0]!;
    if (lex.together) together++;
    counts.push(n);
  }
  counts.sort((a, b) => a - b);
  const pct = (p: number) => counts[Math.min(counts.length - 1, Math.floor(counts.length * p))];
  console.log(JSON.stringify({ chunks, p50: pct(0.5), p95: pct(0.95), max: counts.at(-1), mean: Math.round(counts.reduce((a, b) => a + b, 0) / counts.length), together, answerInTop5: (answered / questions.length).toFixed(3) }));
} finally {
  await rt.close();
  cluster.stop();
}
