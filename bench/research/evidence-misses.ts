/**
 * Per FinanceBench question: where the evidence page stands in the ranking, over one restored snapshot
 * of the reports bench. Diagnosis only. `--k 5` (the default) is what the bench asks; a larger k is
 * another ranking, not a longer view of the same one (the candidate pool and the chosen document's
 * places grow with k), so what stands at rank 6-20 there says where a page nearly made it.
 *
 *   node --import tsx bench/research/evidence-misses.ts [--names real|opaque] [--k 5]
 */
import { parseArgs } from 'node:util';
import { retrieve } from '../../src/services/rag/retrieve';
import { openBenchRuntime } from '../lib/bench-runtime';
import { restoreFinanceBench } from './lib/financebench-snapshot';

const { values } = parseArgs({ options: { names: { type: 'string', default: 'real' }, k: { type: 'string', default: '5' } } });
const naming = values.names as 'real' | 'opaque';
const rt = await openBenchRuntime('postgres');
try {
  const { kb, questions, filingOf } = await restoreFinanceBench(rt, naming);
  const out: unknown[] = [];
  for (const q of questions) {
    const { chunks } = await retrieve(rt.deps, kb, q.question, { topK: Number(values.k) });
    out.push({
      id: q.id,
      half: q.half,
      doc: q.docName,
      want: q.evidencePages,
      q: q.question,
      got: chunks.map((c) => ({ doc: filingOf.get(c.doc_id), page: c.page, score: c.score, text: c.text.slice(0, 160) })),
    });
  }
  console.log(JSON.stringify(out));
} finally {
  await rt.close();
}
