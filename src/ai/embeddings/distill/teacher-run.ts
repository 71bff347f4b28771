/**
 * Runs the full USE-lite model (the teacher) over a JSON array of texts, one shard of it,
 * and writes raw little-endian arrays next to each other:
 *   <out>/<shard>.embedding.f32   [n x 512] final embeddings, in the shard's input order
 *   <out>/<shard>.pooled.f32      [n x 512] mean-pooled last-layer states (head input)
 *   <out>/<shard>.piece-sum.f64   [vocab x 512] sum of last-layer states per piece id (--states)
 *   <out>/<shard>.piece-count.f64 [vocab]                                             (--states)
 * Shard i of n takes the texts whose index % n === i, so two shards run on two cores.
 *
 *   npx tsx src/ai/embeddings/distill/teacher-run.ts <texts.json> <outdir> [i n] [--states]
 *   npx tsx src/ai/embeddings/distill/teacher-run.ts --pieces <outdir>     every vocabulary piece alone
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadTeacher, TEACHER_MAX_TOKENS } from './teacher';

const args = process.argv.slice(2);
const withStates = args.includes('--states');
const piecesMode = args.includes('--pieces');
const positional = args.filter((a) => !a.startsWith('--'));
const DIM = 512;
const BATCH = 32;

const teacher = await loadTeacher();
const V = teacher.vocabulary.length;

let idLists: number[][];
let outDir: string;
let shard = 0;
let shards = 1;
if (piecesMode) {
  outDir = positional[0]!;
  idLists = Array.from({ length: V }, (_, id) => [id]);
} else {
  const texts = JSON.parse(readFileSync(positional[0]!, 'utf8')) as string[];
  outDir = positional[1]!;
  shard = Number(positional[2] ?? 0);
  shards = Number(positional[3] ?? 1);
  idLists = texts.filter((_, i) => i % shards === shard).map((t) => teacher.tokenizer.encode(t));
}
mkdirSync(outDir, { recursive: true });
const tag = piecesMode ? 'pieces' : String(shard);

// Length-sorted batches keep padding (and so wasted compute) low.
const order = idLists.map((_, i) => i).sort((a, b) => idLists[a]!.length - idLists[b]!.length);
const embedding = new Float32Array(idLists.length * DIM);
const pooled = new Float32Array(idLists.length * DIM);
const pieceSum = withStates ? new Float64Array(V * DIM) : undefined;
const pieceCount = withStates ? new Float64Array(V) : undefined;

const t0 = performance.now();
let tokens = 0;
for (let b = 0; b < order.length; b += BATCH) {
  const batch = order.slice(b, b + BATCH);
  const out = await teacher.run(batch.map((i) => idLists[i]!), withStates);
  batch.forEach((i, k) => {
    embedding.set(out.embedding[k]!, i * DIM);
    pooled.set(out.pooled[k]!, i * DIM);
    const ids = idLists[i]!;
    tokens += Math.min(ids.length, TEACHER_MAX_TOKENS);
    if (pieceSum && pieceCount && out.states) {
      const states = out.states[k]!;
      for (let t = 0; t < Math.min(ids.length, TEACHER_MAX_TOKENS); t++) {
        const id = ids[t]!;
        if (id === 0) continue;
        pieceCount[id]! += 1;
        for (let d = 0; d < DIM; d++) pieceSum[id * DIM + d]! += states[t * DIM + d]!;
      }
    }
  });
  if ((b / BATCH) % 50 === 0) {
    const s = (performance.now() - t0) / 1000;
    console.error(`[${tag}] ${b + batch.length}/${order.length} texts, ${s.toFixed(0)} s, ${((b + batch.length) / s).toFixed(1)} texts/s, rss ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`);
  }
}
const seconds = (performance.now() - t0) / 1000;
const write = (name: string, a: Float32Array | Float64Array) =>
  writeFileSync(join(outDir, `${tag}.${name}`), new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
write('embedding.f32', embedding);
write('pooled.f32', pooled);
if (pieceSum && pieceCount) {
  write('piece-sum.f64', pieceSum);
  write('piece-count.f64', pieceCount);
}
console.log(JSON.stringify({
  tag, texts: idLists.length, tokens, seconds: +seconds.toFixed(1),
  textsPerSecond: +(idLists.length / seconds).toFixed(1), msPerToken: +((seconds * 1000) / tokens).toFixed(3),
  peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
}));
