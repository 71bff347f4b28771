/**
 * Retrieval design experiment on SQuAD v1.1 dev (2,067 paragraphs = documents/chunks,
 * 10,570 questions). Everything the product's SQL will do, done in process:
 *   1. BM25 with a Postgres-`english`-like analyzer (lib/bm25.ts), k1/b tuned;
 *   2. dense with the offline provider, a paragraph scored as one chunk vector, as the
 *      normalised mean of its sentence vectors, or by its best sentence;
 *   3. fusion: RRF, z-score mix, min-max mix, raw `cos + w * bm25`, over candidates =
 *      union of each retriever's top `depth`;
 * plus MiniSearch (default BM25+ settings) as the peer. Parameters are tuned on the
 * even-indexed questions and reported on the odd-indexed ones (a fixed split).
 *
 *   npx tsx bench/research/squad-fusion.ts [--asset path]... [--full] [--json out.json]
 *     --asset  evaluate this static-embedding asset instead of the shipped one (repeatable;
 *              distill-eval.ts writes its variants to $GW_RESEARCH/assets/)
 *     --full   also evaluate the full USE-lite vectors cached by the teacher runs in
 *              $GW_RESEARCH by squad-teacher.ts; reference only.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import MiniSearch from 'minisearch';
import { createLocalEmbeddingProvider } from '../../src/ai/embeddings/local';
import { Bm25Index, type Bm25Params } from './lib/bm25';
import { candidates, denseScores, describeFusion, fuse, recall, stack, topK, type Candidates, type Fusion, type Recall } from './lib/retrieval';
import { loadSquad } from './lib/squad';

const DIM = 512;
const DEPTH = Number(process.env.FUSION_DEPTH ?? 50);
const jsonOut = process.argv.includes('--json') ? process.argv[process.argv.indexOf('--json') + 1] : undefined;
const results: Record<string, unknown> = {};
const fmt = (r: Recall) => `R@1 ${r.r1.toFixed(3)}  R@5 ${r.r5.toFixed(3)}  R@10 ${r.r10.toFixed(3)}  MRR@10 ${r.mrr10.toFixed(3)}`;
const objective = (r: Recall) => r.r1 + r.r5;
const mb = (n: number) => `${(n / 1e6).toFixed(0)} MB`;

const squad = loadSquad();
const P = squad.paragraphs.length;
const tuneQ = squad.questions.filter((q) => q.index % 2 === 0);
const testQ = squad.questions.filter((q) => q.index % 2 === 1);
const goldTune = tuneQ.map((q) => q.gold);
const goldTest = testQ.map((q) => q.gold);
console.log(`SQuAD dev: ${P} paragraphs, ${squad.sentences.length} sentences; tune ${tuneQ.length} / test ${testQ.length} questions; fusion depth ${DEPTH}\n`);

// ---- BM25 -------------------------------------------------------------------------
const bm25 = new Bm25Index(squad.paragraphs);
let bestBm25: { params: Bm25Params; r: Recall } | undefined;
const grid: string[] = [];
for (const k1 of [0.4, 0.6, 0.9, 1.2, 1.5, 2.0]) {
  const row: string[] = [];
  for (const b of [0.3, 0.5, 0.75, 0.9, 1.0]) {
    const r = recall(tuneQ.map((q) => topK(bm25.scoreAll(q.text, { k1, b }), 10)), goldTune);
    row.push(`b=${b}: ${r.r1.toFixed(3)}/${r.r5.toFixed(3)}`);
    if (!bestBm25 || objective(r) > objective(bestBm25.r)) bestBm25 = { params: { k1, b }, r };
  }
  grid.push(`  k1=${k1}  ${row.join('  ')}`);
}
console.log(`BM25 grid, tune R@1/R@5:\n${grid.join('\n')}`);
const bm25Params = bestBm25!.params;
const lexTune = tuneQ.map((q) => bm25.scoreAll(q.text, bm25Params));
const lexTest = testQ.map((q) => bm25.scoreAll(q.text, bm25Params));
const bm25Test = recall(lexTest.map((s) => topK(s, 10)), goldTest);
const bm25Default = recall(testQ.map((q) => topK(bm25.scoreAll(q.text, { k1: 1.2, b: 0.75 }), 10)), goldTest);
console.log(`BM25 (pg-english analyzer) k1=${bm25Params.k1} b=${bm25Params.b} (tuned)  test ${fmt(bm25Test)}`);
console.log(`BM25 k1=1.2 b=0.75 (textbook)                      test ${fmt(bm25Default)}`);
results.bm25 = { params: bm25Params, test: bm25Test, textbook: bm25Default };

const mini = new MiniSearch({ fields: ['text'], idField: 'id' });
mini.addAll(squad.paragraphs.map((text, id) => ({ id, text })));
const miniTest = recall(testQ.map((q) => mini.search(q.text).slice(0, 10).map((h) => h.id as number)), goldTest);
console.log(`MiniSearch (defaults, BM25+ k=1.2 b=0.7 d=0.5)                 test ${fmt(miniTest)}\n`);
results.minisearch = { test: miniTest };

// ---- dense ------------------------------------------------------------------------
interface DenseSource {
  name: string;
  sentences: Float32Array[];
  paragraphs: Float32Array[];
  questions: Float32Array[];
}

const assetPaths = process.argv.flatMap((a, i) => (a === '--asset' ? [process.argv[i + 1]!] : []));
const sources: DenseSource[] = [];
for (const assetPath of assetPaths.length ? assetPaths : [undefined]) {
  const provider = createLocalEmbeddingProvider({ assetPath });
  const name = assetPath ? `${provider.id} [${basename(assetPath)}]` : provider.id;
  await provider.embedQuery('warm up');
  const rssBefore = process.memoryUsage().rss;
  let t = performance.now();
  const sentences = await provider.embedDocuments(squad.sentences);
  const sentencesSeconds = (performance.now() - t) / 1000;
  t = performance.now();
  const paragraphs = await provider.embedDocuments(squad.paragraphs);
  const paragraphsSeconds = (performance.now() - t) / 1000;
  const latencies: number[] = [];
  const questions: Float32Array[] = [];
  for (const q of squad.questions) {
    const t0 = performance.now();
    questions.push(await provider.embedQuery(q.text));
    latencies.push(performance.now() - t0);
  }
  latencies.sort((a, b) => a - b);
  const perf = {
    sentencesPerSecond: Math.round(squad.sentences.length / sentencesSeconds),
    paragraphsPerSecond: Math.round(P / paragraphsSeconds),
    queryMs: { p50: +latencies[latencies.length >> 1]!.toFixed(3), p99: +latencies[Math.floor(latencies.length * 0.99)]!.toFixed(3) },
    rss: mb(process.memoryUsage().rss),
    rssGrowthDuringEmbedding: mb(process.memoryUsage().rss - rssBefore),
  };
  console.log(`${name}: ${perf.sentencesPerSecond} sentences/s, ${perf.paragraphsPerSecond} paragraphs/s (one thread), query p50 ${perf.queryMs.p50} ms p99 ${perf.queryMs.p99} ms, rss ${perf.rss}`);
  results[`performance ${name}`] = perf;
  sources.push({ name, sentences, paragraphs, questions });
}

const research = process.env.GW_RESEARCH ?? '/tmp/gw-research';
if (process.argv.includes('--full')) {
  if (!existsSync(join(research, 'squad-questions/1.embedding.f32'))) throw new Error(`--full needs teacher outputs in ${research}`);
  const unshard = (prefix: string, n: number) => {
    const parts = [0, 1].map((s) => new Float32Array(readFileSync(join(research, `${prefix}/${s}.embedding.f32`)).buffer.slice(0)));
    return Array.from({ length: n }, (_, i) => parts[i % 2]!.subarray(Math.floor(i / 2) * DIM, Math.floor(i / 2) * DIM + DIM));
  };
  sources.push({
    name: 'full USE-lite (reference)',
    sentences: unshard('squad-sentences', squad.sentences.length),
    paragraphs: unshard('squad-paragraphs', P),
    questions: unshard('squad-questions', squad.questions.length),
  });
}

const identity = Int32Array.from({ length: P }, (_, i) => i);
function meanOfSentences(sentences: Float32Array[]): Float32Array[] {
  const out = Array.from({ length: P }, () => new Float32Array(DIM));
  sentences.forEach((s, i) => {
    const m = out[squad.sentenceParagraph[i]!]!;
    for (let d = 0; d < DIM; d++) m[d]! += s[d]!;
  });
  for (const m of out) {
    const n = Math.hypot(...m) || 1;
    for (let d = 0; d < DIM; d++) m[d]! /= n;
  }
  return out;
}

const fusions: Fusion[] = [
  ...[1, 5, 10, 20, 40, 60].flatMap((k) => [0.5, 0.6, 0.7, 0.8, 0.9].map((wLex) => ({ kind: 'rrf' as const, k, wLex }))),
  ...Array.from({ length: 21 }, (_, i) => ({ kind: 'zscore' as const, wLex: i / 20 })),
  ...Array.from({ length: 21 }, (_, i) => ({ kind: 'minmax' as const, wLex: i / 20 })),
  ...[0.01, 0.02, 0.03, 0.05, 0.08, 0.12, 0.2, 0.3, 0.5].map((wLex) => ({ kind: 'raw' as const, wLex })),
];
const families = ['rrf', 'zscore', 'minmax', 'raw'] as const;

for (const src of sources) {
  console.log(`\n=== dense: ${src.name}`);
  const reps: Record<string, { vectors: Float32Array[]; group: Int32Array }> = {
    'chunk vector': { vectors: src.paragraphs, group: identity },
    'mean of sentence vectors': { vectors: meanOfSentences(src.sentences), group: identity },
    'best sentence': { vectors: src.sentences, group: squad.sentenceParagraph },
  };
  const srcResults: Record<string, unknown> = {};
  const dense: Record<string, { tune: Float32Array[]; test: Float32Array[] }> = {};
  for (const [rep, { vectors, group }] of Object.entries(reps)) {
    const docs = stack(vectors, DIM);
    dense[rep] = {
      tune: await denseScores(stack(tuneQ.map((q) => src.questions[q.index]!), DIM), docs, DIM, group, P),
      test: await denseScores(stack(testQ.map((q) => src.questions[q.index]!), DIM), docs, DIM, group, P),
    };
  }
  // A chunk stored with both its sentence vectors and its own vector: average the two cosines.
  const average = (a: Float32Array[], b: Float32Array[]) => a.map((x, i) => x.map((v, j) => (v + b[i]![j]!) / 2));
  dense['best sentence + chunk vector (mean of the two cosines)'] = {
    tune: average(dense['best sentence']!.tune, dense['chunk vector']!.tune),
    test: average(dense['best sentence']!.test, dense['chunk vector']!.test),
  };
  for (const [rep, { tune: denseTune, test: denseTest }] of Object.entries(dense)) {
    const denseOnly = recall(denseTest.map((s) => topK(s, 10)), goldTest);
    console.log(`-- ${rep}: dense only  test ${fmt(denseOnly)}`);
    const candTune: Candidates[] = denseTune.map((d, i) => candidates(lexTune[i]!, d, DEPTH));
    const candTest: Candidates[] = denseTest.map((d, i) => candidates(lexTest[i]!, d, DEPTH));
    const repResults: Record<string, unknown> = { denseOnly };
    for (const family of families) {
      let best: { f: Fusion; r: Recall } | undefined;
      for (const f of fusions.filter((x) => x.kind === family)) {
        const r = recall(candTune.map((c) => fuse(c, f)), goldTune);
        if (!best || objective(r) > objective(best.r)) best = { f, r };
      }
      const test = recall(candTest.map((c) => fuse(c, best!.f)), goldTest);
      console.log(`   ${describeFusion(best!.f).padEnd(26)} tune R@1 ${best!.r.r1.toFixed(3)} R@5 ${best!.r.r5.toFixed(3)} | test ${fmt(test)}`);
      repResults[family] = { params: best!.f, tune: best!.r, test };
    }
    // How sensitive is the winner family to its weight? (test numbers across the grid)
    const curve = fusions
      .filter((f) => f.kind === 'zscore' && f.wLex >= 0.5 && f.wLex <= 0.95)
      .map((f) => `${f.wLex.toFixed(2)}:${recall(candTest.map((c) => fuse(c, f)), goldTest).r1.toFixed(3)}`);
    console.log(`   z-score R@1 (test) by wLex  ${curve.join(' ')}`);
    srcResults[rep] = repResults;
  }
  results[src.name] = srcResults;
}

if (jsonOut) writeFileSync(jsonOut, JSON.stringify(results, null, 2));
console.log(`\npeak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`);
