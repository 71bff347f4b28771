/**
 * Where the 619-page PDF's upload -> ready goes, stage by stage, in this process on the embedded
 * database (its own thread, in memory, as `npm start` opens it): the same calls run-ingestion.ts
 * makes, in turn. Each stage prints wall time and the CPU time of the whole process (all threads,
 * PGlite's included): on a shared machine CPU time moves far less than wall time, so it is the
 * figure to compare across commits.
 *
 *   npm run bench -- ingest-stages [--file DA-619p.pdf] [--store steps|one]
 *
 * --store steps (default): as a big document is stored now (ingest-steps.ts): INGEST_STEP_CHUNKS per
 * step in the first job, the next step embedded while the current one is stored (nothing else is
 * queued here, so no step is handed over); one: storeChunks as a small document is.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { createApp } from '../src/app';
import type { DocumentId, KbId } from '../src/ids';
import { chunkDocument } from '../src/ingest/chunker';
import { collapseDegenerateText } from '../src/ingest/degenerate';
import { documentIdentity } from '../src/ingest/document-identity';
import { documentTitle } from '../src/ingest/document-title';
import { extractUpload } from '../src/ingest/extract-document';
import { openRuntime } from '../src/runtime';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { embedChunks } from '../src/services/documents/embed-chunks';
import { ingestInSteps } from '../src/services/documents/ingest-steps';
import { storeChunks } from '../src/services/documents/store-chunks';
import { restClient } from '../test/helpers/api-client';
import { createOrgWithKey } from '../test/helpers/factories';
import { uploadFile } from '../test/helpers/upload';
import { DOCS } from './lib/ingest-server';

const { values } = parseArgs({ options: { file: { type: 'string', default: 'DA-619p.pdf' }, store: { type: 'string', default: 'steps' } } });

const rows: Record<string, { 'wall (s)': string; 'cpu (s)': string }> = {};
let totalWall = 0;
let totalCpu = 0;
async function stage<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const out = await fn();
  const wall = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(cpu0);
  const cpu = (c.user + c.system) / 1e6;
  totalWall += wall;
  totalCpu += cpu;
  rows[name] = { 'wall (s)': wall.toFixed(2), 'cpu (s)': cpu.toFixed(2) };
  return out;
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-bench-stages-'));
const config = loadConfig({ ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn' });
const runtime = await openRuntime({ config, logger: createLogger('warn') });
try {
  const { deps } = runtime;
  const { api_key } = await createOrgWithKey(deps, { plan: 'pro' });
  const app = createApp(deps);
  const api = restClient(app, api_key);
  const kbId = (await api.post('/api/kbs', { name: 'Stages' })).body.kb.id as KbId;
  const bytes = readFileSync(path.join(DOCS, values.file!));
  const up = await uploadFile(app, api_key, kbId, { name: values.file!, bytes });
  const doc = { id: up.body.document.id as DocumentId, kb_id: kbId, org_id: (await deps.db.selectFrom('knowledge_bases').select('org_id').where('id', '=', kbId).executeTakeFirstOrThrow()).org_id as string, filename: values.file!, source: 'upload' as const };
  // No worker runs here: the upload's own job would stay queued, and a big document's job ends
  // its steps early for any queued job (ingest-steps.ts). A server's worker has locked it by now.
  await sql`delete from graphile_worker._private_jobs`.execute(deps.db);
  // The embedder's model loads outside the timed stages (a server has it loaded after its first job).
  await deps.embeddings.default.embedDocuments(['warm up']);

  // A worker's first PDF loads pdf.js (and only it: parsers are imported per type).
  await stage('import the PDF parser', () => import('../src/ingest/parse-pdf'));
  const parsed = await stage('parse (extractUpload)', () => extractUpload(bytes, { filename: values.file!, type: 'pdf', config, onProgress: () => {} }));
  const collapsed = await stage('collapse degenerate text', () => collapseDegenerateText(parsed));
  const chunks = await stage('chunk', () => chunkDocument(collapsed));
  const title = documentTitle(parsed.title, doc);
  const identity = await stage('title + identity', () => documentIdentity(parsed, doc));
  const provider = deps.embeddings.default;
  const meta = { pages: parsed.pages ?? null, dimensions: provider.dimensions, model: provider.id, title, identity, ocrPages: parsed.ocrPages };
  if (values.store === 'one') {
    const embedded = await stage('embed', () => embedChunks(provider, chunks, title, undefined, identity));
    await stage('store (storeChunks, embedded steps)', () => storeChunks(deps, doc, embedded, meta, { inSteps: true }));
  } else {
    const outcome = await stage('steps: embed + store (ingestInSteps)', () => ingestInSteps(deps, doc, chunks, { pages: meta.pages, title, identity, ocrPages: parsed.ocrPages }));
    if (outcome !== 'ready') throw new Error(`ingestInSteps: ${outcome}`);
  }
  const final = await deps.db.selectFrom('documents').select(['status', 'chunk_count']).where('id', '=', doc.id).executeTakeFirstOrThrow();
  rows.total = { 'wall (s)': totalWall.toFixed(2), 'cpu (s)': totalCpu.toFixed(2) };
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`${values.file}: ${parsed.pages} pages, ${chunks.length} chunks, ${final.status} (${final.chunk_count}); store ${values.store}; load average ${load}`);
  console.table(rows);
} finally {
  await runtime.database.close();
  rmSync(dataDir, { recursive: true, force: true });
}
