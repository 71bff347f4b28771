/**
 * Per FinanceBench question: where the evidence page stands in the ranking (top 20 passages), over one
 * restored snapshot of the reports bench. Diagnosis only.
 *
 *   node --import tsx bench/research/evidence-misses.ts [--names real|opaque]
 */
import { parseArgs } from 'node:util';
import { retrieve } from '../../src/services/rag/retrieve';
import { openBenchRuntime } from '../lib/bench-runtime';
import { restoreFinanceBench } from './lib/financebench-snapshot';

const { values } = parseArgs({ options: { names: { type: 'string', default: 'real' }, k: { type: 'string', default: '20' } } });
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
