/**
 * The offline refusal gate's curve over a dump of `npm run bench -- reports --dump FILE`: for each
 * threshold of support = coverage + 2 x cosine + BM25 / lexical ceiling (src/ai/offline/support.ts),
 * and for the gates without one of the three terms at the threshold that leaves 2 off-topic
 * questions of 100, what is answered: earnings questions (right call), SQuAD answers containing
 * gold, off-topic and held-out off-topic questions (docs/answers.md, the refusal gate).
 *   node --import tsx bench/research/refusal-gate-curve.ts FILE
 */
import { answerFromPassages } from '../../src/ai/offline/answerer';
import { passageSupport } from '../../src/ai/offline/support';
import { containsAnswer } from '../lib/squad';
import { readReportsDump } from '../lib/reports-dump';

type Row = { kind: string; parts: Array<[coverage: number, cosine: number, bm25Share: number]>; good: boolean };

const rows: Row[] = [];
for (const r of readReportsDump(process.argv[2]!)) {
  const { passages } = r;
  if (!r.confident || passages.length === 0) continue;
  const answer = answerFromPassages(r.question, passages);
  if (answer.refused) continue;
  const scored = passages.map((p, i) => ({ ...p, dense: r.scores[i]!.dense, lexical: r.scores[i]!.lexical }));
  // passageSupport without a ceiling is coverage + 2 x cosine: take the terms apart.
  const parts = passageSupport(r.question, scored, 0).map((s, i): Row['parts'][number] => {
    const cosine = Math.max(0, scored[i]!.dense);
    return [s - 2 * cosine, cosine, r.lexicalCeiling > 0 ? Math.max(0, scored[i]!.lexical) / r.lexicalCeiling : 0];
  });
  const good =
    r.kind === 'answerable' ? answer.markers.some((m) => r.files[m - 1] === r.want) : r.kind === 'squad' ? containsAnswer(answer.text, r.answers!) : false;
  rows.push({ kind: r.kind, parts, good });
}

type Weights = [coverage: number, cosine: number, bm25Share: number];
const support = (row: Row, [a, b, c]: Weights) => Math.max(...row.parts.map(([x, y, z]) => a * x + b * y + c * z));
const count = (kept: Row[], kind: string, good = false) => kept.filter((r) => r.kind === kind && (!good || r.good)).length;
const line = (label: string, kept: Row[]) => ({
  gate: label,
  'earnings answered': count(kept, 'answerable'),
  'right call': count(kept, 'answerable', true),
  'SQuAD correct': count(kept, 'squad', true),
  'off-topic': count(kept, 'off-topic'),
  'held-out': count(kept, 'held-out'),
  unanswerable: count(kept, 'unanswerable'),
});

const table = [line('none', rows), line('coverage + 0.5 cos >= 0.65 (row 4)', rows.filter((r) => support(r, [1, 0.5, 0]) >= 0.65))];
for (const theta of [1.5, 1.6, 1.65, 1.68, 1.7, 1.75, 1.8, 1.9, 2.0]) {
  table.push(line(`coverage + 2 cos + BM25 share >= ${theta}`, rows.filter((r) => support(r, [1, 2, 1]) >= theta)));
}
// Each gate at its lowest threshold leaving at most 2 off-topic questions.
const gates: Array<[string, Weights]> = [
  ['coverage + 0.5 cos', [1, 0.5, 0]],
  ['coverage + 2 cos', [1, 2, 0]],
  ['2 cos + BM25 share', [0, 2, 1]],
  ['coverage + 2 cos + BM25 share', [1, 2, 1]],
];
for (const [label, w] of gates) {
  const thresholds = [...new Set(rows.map((r) => support(r, w)))].sort((a, b) => a - b);
  const theta = thresholds.find((t) => count(rows.filter((r) => support(r, w) >= t), 'off-topic') <= 2)!;
  table.push(line(`${label} >= ${theta.toFixed(3)} (2 off-topic)`, rows.filter((r) => support(r, w) >= theta)));
}
console.table(table);
