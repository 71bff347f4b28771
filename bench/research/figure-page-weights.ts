/**
 * Evidence page among the top 5 passages of FinanceBench (bench/lib/financebench.ts) for several
 * figure-page weights (src/services/rag/figure-pages.ts), over one restored snapshot of the reports
 * bench (`npm run bench -- reports --corpora financebench --names NAMING --reuse` must have saved it):
 *
 *   node --import tsx bench/research/figure-page-weights.ts [--names real|opaque] [--weights 0,0.5,1,1.5,2]
 */
import { parseArgs } from 'node:util';
import { retrieve } from '../../src/services/rag/retrieve';
import { openBenchRuntime } from '../lib/bench-runtime';
import { restoreFinanceBench } from './lib/financebench-snapshot';

const { values } = parseArgs({ options: { names: { type: 'string', default: 'real' }, weights: { type: 'string', default: '0,0.5,1,1.5,2' } } });
const naming = values.names as 'real' | 'opaque';
const rt = await openBenchRuntime('postgres');
try {
  const { kb, questions, filingOf } = await restoreFinanceBench(rt, naming);
  for (const weight of values.weights.split(',').map(Number)) {
    const hits = { tuning: 0, 'held-out': 0 };
    let first = 0;
    let top5 = 0;
    for (const q of questions) {
      const { chunks } = await retrieve(rt.deps, kb, q.question, { topK: 5, figurePageWeight: weight });
      const got = chunks.map((c) => filingOf.get(c.doc_id));
      if (got[0] === q.docName) first++;
      if (got.includes(q.docName)) top5++;
      if (process.env.VERBOSE) console.log(`${weight} ${q.id} ${chunks.map((c) => `${filingOf.get(c.doc_id)}:p${c.page}`).join(' ')}`);
      if (chunks.some((c) => filingOf.get(c.doc_id) === q.docName && c.page !== null && q.evidencePages.includes(c.page))) hits[q.half]++;
    }
    const n = (h: 'tuning' | 'held-out') => questions.filter((q) => q.half === h).length;
    console.log(
      `${naming} weight ${weight}: evidence page in top 5 ${(hits.tuning / n('tuning')).toFixed(3)} / ${(hits['held-out'] / n('held-out')).toFixed(3)} / ${((hits.tuning + hits['held-out']) / questions.length).toFixed(3)}; first ${(first / questions.length).toFixed(3)}, top 5 ${(top5 / questions.length).toFixed(3)}`,
    );
  }
} finally {
  await rt.close();
}
