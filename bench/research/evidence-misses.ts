/**
 * Per FinanceBench question: where the evidence page stands in the ranking (top 20 passages), over one
 * restored snapshot of the reports bench. Diagnosis only.
 *
 *   node --import tsx bench/research/evidence-misses.ts [--names real|opaque]
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createOrg } from '../../src/services/orgs/create-org';
import { retrieve } from '../../src/services/rag/retrieve';
import type { KbId } from '../../src/ids';
import { openBenchRuntime } from '../lib/bench-runtime';
import { loadFinanceBench } from '../lib/financebench';
import { defaultKbCacheDir, kbCacheKey, restoreKb } from '../lib/kb-cache';

const { values } = parseArgs({ options: { names: { type: 'string', default: 'real' }, k: { type: 'string', default: '20' } } });
const naming = values.names as 'real' | 'opaque';
const rt = await openBenchRuntime('postgres');
try {
  const { files, questions } = loadFinanceBench(path.resolve(import.meta.dirname, '../../../shared/data/financebench'), { naming });
  const { org } = await createOrg(rt.deps, { name: 'Misses', slug: 'misses', plan: 'pro' });
  const snapshot = path.join(defaultKbCacheDir(), `${kbCacheKey(`financebench (${naming} names)`, files, rt.deps.embeddings.default.id)}.jsonl.gz`);
  const kbId = (await restoreKb(rt.deps.db, snapshot, org.id)) as KbId | null;
  if (!kbId) throw new Error(`no snapshot ${snapshot}`);
  const kb = await rt.deps.db.selectFrom('knowledge_bases').selectAll().where('id', '=', kbId).executeTakeFirstOrThrow();
  const docs = await rt.deps.db.selectFrom('documents').select(['id', 'filename']).where('kb_id', '=', kbId).execute();
  const wantOf = new Map(files.map((f) => [f.filename, f.docName]));
  const filingOf = new Map(docs.map((d) => [d.id as string, wantOf.get(d.filename) ?? '']));
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
