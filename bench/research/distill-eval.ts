/**
 * Which static approximation of USE-lite to ship? Compares, on SQuAD dev (never used to
 * fit anything), agreement with the full model and dense-only retrieval:
 *   alone        each piece's vector = full model run on that piece alone (team prototype)
 *   alone+SIF    the same, pooled with SIF weights a/(a+p(piece)), p from the vocab's log-probs
 *   ctx          per-piece mean of the last-layer token states over the corpus, then the
 *                model's own tanh head (USE-lite with attention averaged out)
 *   ctx+SIF      ctx pooled with SIF weights
 *   trained      ctx fine-tuned on the corpus to match the full model's output (cosine loss)
 *   full         the full model itself (reference; ~20 ms per sentence)
 *
 * Needs teacher outputs in $GW_RESEARCH (default /tmp/gw-research): run
 * `src/ai/embeddings/distill/generate.ts --workdir $GW_RESEARCH` (corpus and piece
 * passes) and `bench/research/squad-teacher.ts` first; see embeddings-and-fusion.md.
 *
 *   npx tsx bench/research/distill-eval.ts [--epochs N] [--lr X]
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadTeacher } from '../../src/ai/embeddings/distill/teacher';
import { foldDense, meanCosine, trainTable, type TrainExample } from '../../src/ai/embeddings/distill/train';
import { encodeAsset } from '../../src/ai/embeddings/asset';
import { StaticEncoder } from '../../src/ai/embeddings/static-encoder';
import { UNKNOWN_ID } from '../../src/ai/embeddings/tokenizer';
import { denseScores, recall, stack, topK } from './lib/retrieval';
import { loadSquad } from './lib/squad';

const DIR = process.env.GW_RESEARCH ?? '/tmp/gw-research';
const DIM = 512;
const MAX_TOKENS = 128;
const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};

const f32 = (p: string) => new Float32Array(readFileSync(join(DIR, p)).buffer.slice(0));
const f64 = (p: string) => new Float64Array(readFileSync(join(DIR, p)).buffer.slice(0));
/** Re-interleaves shard outputs (shard i holds inputs i, i+n, ...) into input order. */
function unshard(prefix: string, n: number, count: number, file: string): Float32Array[] {
  const parts = Array.from({ length: 2 }, (_, s) => f32(`${prefix}/${s}.${file}`));
  return Array.from({ length: n }, (_, i) => parts[i % 2]!.subarray(Math.floor(i / 2) * count, Math.floor(i / 2) * count + count));
}

const teacher = await loadTeacher();
const V = teacher.vocabulary.length;
const { tokenizer } = teacher;

// ---- tables -----------------------------------------------------------------------
const alone = f32('teacher/pieces.embedding.f32');
const aloneState = f64('teacher/pieces.piece-sum.f64');
const sum = f64('corpus/0.piece-sum.f64');
const count = f64('corpus/0.piece-count.f64');
const sum1 = f64('corpus/1.piece-sum.f64');
const count1 = f64('corpus/1.piece-count.f64');
for (let i = 0; i < sum.length; i++) sum[i]! += sum1[i]!;
for (let i = 0; i < count.length; i++) count[i]! += count1[i]!;
// Shrink rare pieces toward their context-free state: one pseudo-occurrence.
const ctx = new Float32Array(V * DIM);
for (let p = 0; p < V; p++) {
  for (let d = 0; d < DIM; d++) ctx[p * DIM + d] = (sum[p * DIM + d]! + aloneState[p * DIM + d]!) / (count[p]! + 1);
}
const seen = count.reduce((a, c) => a + (c > 0 ? 1 : 0), 0);
console.log(`vocab ${V}, pieces seen in corpus ${seen}`);

const sif = (a: number) => Float32Array.from(teacher.vocabulary, ([, logp]) => a / (a + Math.exp(logp)));
const bias = teacher.headB;
// Fold the head's dense layer into the table (see static-encoder.ts).
const ctxT = foldDense(ctx, DIM, teacher.headW, DIM);

// ---- training ---------------------------------------------------------------------
const corpus = JSON.parse(readFileSync(join(DIR, 'corpus.json'), 'utf8')) as string[];
const corpusEmb = unshard('corpus', corpus.length, DIM, 'embedding.f32');
const examples: TrainExample[] = corpus.map((text, i) => ({
  ids: Int32Array.from(tokenizer.encode(text).slice(0, MAX_TOKENS).filter((id) => id !== UNKNOWN_ID)),
  target: corpusEmb[i]!,
}));
// Deterministic held-out slice: every 20th sentence.
const heldOut = examples.filter((_, i) => i % 20 === 0);
const train = examples.filter((_, i) => i % 20 !== 0);
const epochs = arg('epochs', 20);
const lr = arg('lr', 0.003);
const trainedPath = join(DIR, `trained-T-e${epochs}-lr${lr}.f32`);
let trained: Float32Array;
if (existsSync(trainedPath)) {
  trained = f32(trainedPath.slice(DIR.length + 1));
} else {
  trained = ctxT.slice();
  const t = performance.now();
  const res = trainTable(trained, train, heldOut, {
    dim: DIM, bias, epochs, learningRate: lr, batchSize: 64, seed: 1,
    log: (l) => console.log(`  ${l} (${((performance.now() - t) / 1000).toFixed(0)} s)`),
  });
  console.log(`trained: best epoch ${res.epoch}, held-out corpus cos ${res.cosine.toFixed(4)}`);
  writeFileSync(trainedPath, new Uint8Array(trained.buffer));
}
console.log(`held-out corpus cos: ctx ${meanCosine(ctxT, heldOut, bias, DIM).toFixed(4)}, trained ${meanCosine(trained, heldOut, bias, DIM).toFixed(4)}`);

type Variant = { table: Float32Array; activation: 'tanh' | 'none'; bias?: Float32Array; pieceWeights?: Float32Array };
const variants: Record<string, Variant> = {
  alone: { table: alone, activation: 'none' },
  'alone+SIF': { table: alone, activation: 'none', pieceWeights: sif(1e-3) },
  ctx: { table: ctxT, activation: 'tanh', bias },
  'ctx+SIF': { table: ctxT, activation: 'tanh', bias, pieceWeights: sif(1e-3) },
  trained: { table: trained, activation: 'tanh', bias },
  'trained+SIF': { table: trained, activation: 'tanh', bias, pieceWeights: sif(1e-3) },
};
mkdirSync(join(DIR, 'assets'), { recursive: true });
const encoders: Record<string, StaticEncoder> = {};
for (const [name, v] of Object.entries(variants)) {
  encoders[name] = new StaticEncoder({ tokenizer, dimensions: DIM, ...v });
  // Also as an asset, for squad-fusion.ts --asset.
  const bytes = encodeAsset({
    header: {
      format: 'groundwork-static-embeddings', version: 1, modelId: 'local:use-lite-distilled@1',
      vocabulary: teacher.vocabulary, dimensions: DIM, activation: v.activation, bias: !!v.bias,
      pieceWeights: !!v.pieceWeights, provenance: { variant: name },
    },
    ...v,
  });
  writeFileSync(join(DIR, 'assets', `${name.replace('+', '-')}.bin`), bytes);
}

// ---- SQuAD ------------------------------------------------------------------------
const squad = loadSquad();
const tune = squad.questions.filter((q) => q.index % 2 === 0);
const gold = tune.map((q) => q.gold);
const P = squad.paragraphs.length;
const full = {
  sentences: unshard('squad-sentences', squad.sentences.length, DIM, 'embedding.f32'),
  questions: unshard('squad-questions', squad.questions.length, DIM, 'embedding.f32'),
  paragraphs: unshard('squad-paragraphs', P, DIM, 'embedding.f32'),
};
const identity = Int32Array.from({ length: P }, (_, i) => i);

async function evaluate(name: string, sentences: Float32Array[], questions: Float32Array[], paragraphs: Float32Array[]) {
  const q = stack(tune.map((x) => questions[x.index]!), DIM);
  const meanOfSentences = Array.from({ length: P }, () => new Float32Array(DIM));
  sentences.forEach((s, i) => meanOfSentences[squad.sentenceParagraph[i]!]!.forEach((_, d, m) => (m[d]! += s[d]!)));
  for (const m of meanOfSentences) {
    const n = Math.hypot(...m) || 1;
    m.forEach((_, d) => (m[d]! /= n));
  }
  const reps = {
    chunk: await denseScores(q, stack(paragraphs, DIM), DIM, identity, P),
    'mean-sent': await denseScores(q, stack(meanOfSentences, DIM), DIM, identity, P),
    'max-sent': await denseScores(q, stack(sentences, DIM), DIM, squad.sentenceParagraph, P),
  };
  const cells: string[] = [];
  for (const [rep, scores] of Object.entries(reps)) {
    const r = recall(scores.map((s) => topK(s, 10)), gold);
    cells.push(`${rep} ${r.r1.toFixed(3)}/${r.r5.toFixed(3)}`);
  }
  const agree = (a: Float32Array[], b: Float32Array[]) =>
    a.reduce((acc, v, i) => acc + v.reduce((x, y, d) => x + y * b[i]![d]!, 0), 0) / a.length;
  const agreement = name === 'full' ? '' : `cos to full: sent ${agree(sentences, full.sentences).toFixed(3)} q ${agree(questions, full.questions).toFixed(3)} | `;
  console.log(`${name.padEnd(12)} ${agreement}R@1/R@5 ${cells.join('  ')}`);
}

console.log(`\nSQuAD dev, tune half (${tune.length} questions), dense only:`);
await evaluate('full', full.sentences, full.questions, full.paragraphs);
for (const [name, enc] of Object.entries(encoders)) {
  const t = performance.now();
  const sentences = squad.sentences.map((s) => enc.embed(s));
  const rate = squad.sentences.length / ((performance.now() - t) / 1000);
  const questions = squad.questions.map((s) => enc.embed(s.text));
  const paragraphs = squad.paragraphs.map((s) => enc.embed(s));
  await evaluate(`${name}`, sentences, questions, paragraphs);
  console.log(`${''.padEnd(12)} (${rate.toFixed(0)} sentences/s)`);
}
