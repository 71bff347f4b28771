/**
 * Retrieval and answer quality on SQuAD v1.1 dev: the 2,067 paragraphs ingested as documents into one
 * KB through the real pipeline (upload service -> documents__ingest job), then its questions asked.
 * Prints Recall@1/@5 of the gold paragraph for full-text only, vectors only, our hybrid default and
 * an in-process BM25 peer (MiniSearch), and how often the offline answer contains a gold answer.
 *
 *   npm run bench -- quality [--db postgres|embedded] [--questions all|N] [--answers N] [--tune]
 *
 * --tune grid-searches the fusion weights on the even-numbered questions and reports them on the
 * odd-numbered ones (held out), next to the shipped default.
 */
import { parseArgs } from 'node:util';
import { runOnce } from 'graphile-worker';
import MiniSearch from 'minisearch';
import { silentWorkerLogger } from '../db/migrate';
import { createContext } from '../src/context';
import type { KbId } from '../src/ids';
import { createTaskList } from '../src/jobs/task-list';
import { ingestUpload } from '../src/services/documents/ingest-upload';
import { createKb } from '../src/services/kbs/create-kb';
import { createOrg } from '../src/services/orgs/create-org';
import { collectAnswer } from '../src/answering/answer-stream';
import { fuse, type FusionWeights } from '../src/answering/retrieval/fuse';
import { DEFAULT_FUSION } from '../src/answering/calibration';
import { retrieve, scoreCandidates, type RetrievalMode } from '../src/answering/retrieval/retrieve';
import { startSearch } from '../src/services/rag/search';
import { openBenchRuntime, type BenchDb } from './lib/bench-runtime';
import { containsAnswer, everyKth, loadSquad } from './lib/squad';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'postgres' },
    questions: { type: 'string', default: 'all' },
    answers: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '4' },
    tune: { type: 'boolean', default: false },
  },
});

const { paragraphs, questions: allQuestions } = loadSquad();
const questions = values.questions === 'all' ? allQuestions : everyKth(allQuestions, Number(values.questions));
const concurrency = Number(values.concurrency);

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

const rt = await openBenchRuntime(values.db as BenchDb);
try {
  const started = performance.now();
  const { org } = await createOrg(rt.deps, { name: 'SQuAD bench', slug: 'squad-bench', plan: 'pro' });
  const orgRow = await rt.deps.db.selectFrom('organizations').selectAll().where('id', '=', org.id).executeTakeFirstOrThrow();
  const ctx = createContext(rt.deps, orgRow, { requestId: 'bench' });
  const { kb } = await createKb(ctx, { name: 'SQuAD dev' });
  const docToParagraph = new Map<string, number>();
  for (const p of paragraphs) {
    const { document } = await ingestUpload(ctx, { kb_id: kb.id, filename: `squad-${p.index}.txt`, bytes: Buffer.from(p.context) });
    docToParagraph.set(document.id, p.index);
  }
  await runOnce({
    pgPool: rt.database.pool,
    taskList: createTaskList(rt.deps),
    concurrency: 2,
    noPreparedStatements: rt.database.mode !== 'postgres',
    logger: silentWorkerLogger,
  });
  const ready = await rt.deps.db.selectFrom('documents').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'ready').executeTakeFirstOrThrow();
  const chunkCount = await rt.deps.db.selectFrom('chunks').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  console.log(`ingested ${ready.n}/${paragraphs.length} paragraphs (${chunkCount.n} chunks) in ${((performance.now() - started) / 1000).toFixed(1)} s on ${values.db}`);

  const kbRow = await rt.deps.db.selectFrom('knowledge_bases').selectAll().where('id', '=', kb.id as KbId).executeTakeFirstOrThrow();

  // Recall of our three retrieval modes, through the same retrieve() the API uses.
  const recall = async (mode: RetrievalMode) => {
    let r1 = 0;
    let r5 = 0;
    await mapLimit(questions, concurrency, async (q) => {
      const { chunks } = await retrieve(rt.deps, kbRow, q.question, { topK: 5, mode });
      const docs = [...new Set(chunks.map((c) => docToParagraph.get(c.doc_id)))];
      if (docs[0] === q.paragraph) r1++;
      if (docs.slice(0, 5).includes(q.paragraph)) r5++;
    });
    return { r1: r1 / questions.length, r5: r5 / questions.length };
  };

  const rows: Record<string, { 'Recall@1': string; 'Recall@5': string }> = {};
  const fmt = (x: { r1: number; r5: number }) => ({ 'Recall@1': x.r1.toFixed(3), 'Recall@5': x.r5.toFixed(3) });
  for (const mode of ['lexical', 'dense', 'hybrid'] as const) {
    const t0 = performance.now();
    rows[`${mode === 'lexical' ? 'full-text (BM25 in SQL)' : mode === 'dense' ? 'vectors only' : 'hybrid (default)'}`] = fmt(await recall(mode));
    console.log(`  ${mode}: ${((performance.now() - t0) / questions.length).toFixed(1)} ms/question`);
  }

  const mini = new MiniSearch<{ id: number; text: string }>({ fields: ['text'] });
  mini.addAll(paragraphs.map((p) => ({ id: p.index, text: p.context })));
  let m1 = 0;
  let m5 = 0;
  for (const q of questions) {
    const hits = mini.search(q.question).slice(0, 5).map((h) => h.id);
    if (hits[0] === q.paragraph) m1++;
    if (hits.includes(q.paragraph)) m5++;
  }
  rows['BM25 peer (MiniSearch, in process)'] = fmt({ r1: m1 / questions.length, r5: m5 / questions.length });

  if (values.tune) {
    // Candidate lists once per question, then every weight on the same lists.
    const lists = await mapLimit(questions, concurrency, async (q) => {
      const provider = rt.deps.embeddings.get(kbRow.embedding_model)!;
      const embedding = await provider.embedQuery(q.question);
      return scoreCandidates(rt.deps.db, kbRow.id, q.question, { model: provider.id, embedding }, { pool: 50, lexical: true });
    });
    const chunkDoc = new Map(
      (await rt.deps.db.selectFrom('chunks').select(['id', 'document_id']).where('kb_id', '=', kbRow.id).execute()).map((c) => [c.id, docToParagraph.get(c.document_id)]),
    );
    const score = (w: FusionWeights, parity: 0 | 1) => {
      let r1 = 0;
      let r5 = 0;
      let n = 0;
      questions.forEach((q, i) => {
        if (i % 2 !== parity) return;
        n++;
        const ranked = fuse(lists[i]!.candidates, w).map((r) => chunkDoc.get(r.id));
        const docs = [...new Set(ranked)];
        if (docs[0] === q.paragraph) r1++;
        if (docs.slice(0, 5).includes(q.paragraph)) r5++;
      });
      return { r1: r1 / n, r5: r5 / n };
    };
    let best = { w: DEFAULT_FUSION, s: score(DEFAULT_FUSION, 0) };
    for (let lexical = 0; lexical <= 1.0001; lexical += 0.05) {
      const w = { lexical: Number(lexical.toFixed(2)), dense: Number((1 - lexical).toFixed(2)) };
      const s = score(w, 0);
      if (s.r1 + s.r5 > best.s.r1 + best.s.r5) best = { w, s };
    }
    console.log(`\ntuned on even questions: lexical ${best.w.lexical}, dense ${best.w.dense} -> R@1 ${best.s.r1.toFixed(3)} R@5 ${best.s.r5.toFixed(3)}`);
    const heldOut = score(best.w, 1);
    const shipped = score(DEFAULT_FUSION, 1);
    console.log(`held-out (odd questions): tuned R@1 ${heldOut.r1.toFixed(3)} R@5 ${heldOut.r5.toFixed(3)}; shipped default ${JSON.stringify(DEFAULT_FUSION)} R@1 ${shipped.r1.toFixed(3)} R@5 ${shipped.r5.toFixed(3)}`);
  }

  // Offline answers: does the answer text contain a gold answer string?
  const answerSample = everyKth(allQuestions, Number(values.answers));
  let contained = 0;
  let refused = 0;
  const latencies: number[] = [];
  await mapLimit(answerSample, concurrency, async (q) => {
    const t0 = performance.now();
    const { answer, citations } = await collectAnswer(await startSearch(ctx, { kb_id: kb.id, query: q.question }));
    latencies.push(performance.now() - t0);
    if (citations.length === 0) refused++;
    if (containsAnswer(answer, q.answers)) contained++;
  });
  latencies.sort((a, b) => a - b);

  console.log(`\nSQuAD v1.1 dev: ${paragraphs.length} paragraphs, ${questions.length} questions (${values.questions === 'all' ? 'all' : 'every k-th'}), db ${values.db}, embeddings ${kbRow.embedding_model}`);
  console.table(rows);
  console.log(
    `offline answers (${answerSample.length} questions, every k-th): contain a gold answer ${((100 * contained) / answerSample.length).toFixed(1)}%, ` +
      `refused ${((100 * refused) / answerSample.length).toFixed(1)}%, search p50 ${latencies[Math.floor(latencies.length / 2)]!.toFixed(0)} ms`,
  );
} finally {
  await rt.close();
}
