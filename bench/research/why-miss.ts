import path from 'node:path';
import { createOrg } from '../../src/services/orgs/create-org';
import { retrieve } from '../../src/services/rag/retrieve';
import { openBenchRuntime } from '../lib/bench-runtime';
import { loadFinanceBench } from '../lib/financebench';
import { defaultKbCacheDir, kbCacheKey, restoreKb } from '../lib/kb-cache';
const DATA = path.resolve(import.meta.dirname, '../../../shared/data/financebench');
const rt = await openBenchRuntime('postgres');
try {
  const { org } = await createOrg(rt.deps, { name: 'why', slug: 'why', plan: 'pro' });
  const { files, questions } = loadFinanceBench(DATA, { naming: 'real' });
  const snapshot = path.join(defaultKbCacheDir(), `${kbCacheKey('financebench (real names)', files, rt.deps.embeddings.default.id)}.jsonl.gz`);
  const kbId = await restoreKb(rt.deps.db, snapshot, org.id);
  const kb = await rt.deps.db.selectFrom('knowledge_bases').selectAll().where('id', '=', kbId as never).executeTakeFirstOrThrow();
  const want = process.argv.slice(2);
  for (const q of questions.filter((q) => want.some((w) => q.id.endsWith(w)))) {
    const r = await retrieve(rt.deps, kb, q.question, { topK: 10 });
    console.log(`\n${q.id} want ${q.docName}: ${q.question}`);
    for (const c of r.chunks) console.log(`  ${c.filename}:p${c.page} score ${c.score.toFixed(3)} lex ${c.lexical?.toFixed(2)} dense ${c.dense?.toFixed(2)}`);
  }
} finally {
  await rt.close();
}
