/**
 * The reports bench's FinanceBench KB, restored from its snapshot into a bench runtime, with the
 * filing each document is (`npm run bench -- reports --corpora financebench --names NAMING --reuse`
 * must have saved it), so a bench can measure retrieval over it without ingesting 41 filings again.
 */
import path from 'node:path';
import { createOrg } from '../../src/services/orgs/create-org';
import type { KbId } from '../../src/ids';
import type { openBenchRuntime } from './bench-runtime';
import { loadFinanceBench } from './financebench';
import { defaultKbCacheDir, kbCacheKey, restoreKb } from './kb-cache';

export async function restoreFinanceBench(rt: Awaited<ReturnType<typeof openBenchRuntime>>, naming: 'real' | 'opaque') {
  const { files, questions } = loadFinanceBench(path.resolve(import.meta.dirname, '../../../shared/data/financebench'), { naming });
  const { org } = await createOrg(rt.deps, { name: 'Bench', slug: 'bench', plan: 'pro' });
  const snapshot = path.join(defaultKbCacheDir(), `${kbCacheKey(`financebench (${naming} names)`, files, rt.deps.embeddings.default.id)}.jsonl.gz`);
  const kbId = (await restoreKb(rt.deps.db, snapshot, org.id)) as KbId | null;
  if (!kbId) throw new Error(`no snapshot ${snapshot}: run \`npm run bench -- reports --corpora financebench --names ${naming} --reuse\` first`);
  const kb = await rt.deps.db.selectFrom('knowledge_bases').selectAll().where('id', '=', kbId).executeTakeFirstOrThrow();
  const docs = await rt.deps.db.selectFrom('documents').select(['id', 'filename']).where('kb_id', '=', kbId).execute();
  const wantOf = new Map(files.map((f) => [f.filename, f.docName]));
  /** Document id → the filing's name in the dataset. */
  const filingOf = new Map(docs.map((d) => [d.id as string, wantOf.get(d.filename) ?? '']));
  return { kb, questions, filingOf };
}
