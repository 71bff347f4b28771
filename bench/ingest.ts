/**
 * Ingestion benchmark on the offline default, through `npm start` exactly as a user runs it (embedded
 * database, worker inside the web process): every PDF/DOCX/MD file of ../shared/data/docs uploaded,
 * then the 619-page PDF and the 872-page DOCX alone. Prints pages/s and chunks/s, wall times, and
 * the server process's peak RSS (sampled every 50 ms; it hosts the worker).
 *
 *   npm run bench -- ingest [--db embedded|postgres]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startThrowawayCluster } from '../test/infra/postgres-cluster';
import { rssMb, startServer, type StartedServer } from '../test/helpers/server-process';

const DOCS = path.resolve(import.meta.dirname, '../../shared/data/docs');
const { values } = parseArgs({ options: { db: { type: 'string', default: 'embedded' } } });

type Doc = { id: string; filename: string; status: string; chunk_count: number; pages: number | null; error: string | null };

async function upload(server: StartedServer, key: string, kbId: string, file: string) {
  const form = new FormData();
  form.set('file', new Blob([readFileSync(path.join(DOCS, file))]), file);
  form.set('kb_id', kbId);
  const res = await fetch(`${server.url}/api/ingest/upload`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
  if (res.status !== 202) throw new Error(`${file}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { document: Doc }).document.id;
}

async function waitAll(server: StartedServer, key: string, kbId: string, ids: string[], peak: { mb: number }): Promise<{ docs: Doc[]; ms: number }> {
  const t0 = performance.now();
  const sampler = setInterval(() => (peak.mb = Math.max(peak.mb, rssMb(server.child.pid!))), 50);
  try {
    for (;;) {
      const res = await fetch(`${server.url}/api/kbs/${kbId}/documents`, { headers: { 'x-api-key': key } });
      const docs = ((await res.json()) as { documents: Doc[] }).documents.filter((d) => ids.includes(d.id));
      if (docs.every((d) => d.status !== 'processing')) return { docs, ms: performance.now() - t0 };
      if (performance.now() - t0 > 30 * 60_000) throw new Error('ingestion did not finish in 30 min');
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    clearInterval(sampler);
  }
}

async function newKb(server: StartedServer, key: string, name: string) {
  const res = await fetch(`${server.url}/api/kbs`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
  return ((await res.json()) as { kb: { id: string } }).kb.id;
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-bench-ingest-'));
const cluster = values.db === 'postgres' && !process.env.TEST_DATABASE_URL ? await startThrowawayCluster() : null;
let env: Record<string, string> = { DATA_DIR: dataDir, DATABASE_URL: '', RATE_LIMIT_PER_MINUTE: '100000000' };
if (values.db === 'postgres') {
  const admin = process.env.TEST_DATABASE_URL ?? cluster!.url;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`create database gw_bench_ingest_${process.pid}`);
  await c.end();
  const u = new URL(admin);
  u.pathname = `/gw_bench_ingest_${process.pid}`;
  env = { ...env, DATABASE_URL: u.toString(), WORKER_INLINE: 'true' };
}
const server = await startServer(env);
try {
  const key = server.apiKey!;
  const files = readdirSync(DOCS).filter((f) => /\.(pdf|docx|md)$/i.test(f)).sort();

  const corpusKb = await newKb(server, key, 'Corpus');
  const peakCorpus = { mb: rssMb(server.child.pid!) };
  const ids = [];
  for (const f of files) ids.push(await upload(server, key, corpusKb, f));
  const corpus = await waitAll(server, key, corpusKb, ids, peakCorpus);
  const ready = corpus.docs.filter((d) => d.status === 'ready');
  const pages = ready.reduce((a, d) => a + (d.pages ?? 0), 0);
  const chunks = ready.reduce((a, d) => a + d.chunk_count, 0);
  console.log(`\nshared corpus: ${files.length} PDF/DOCX/MD files on ${values.db}`);
  console.table(
    corpus.docs
      .map((d) => ({ file: d.filename, status: d.status, pages: d.pages ?? '', chunks: d.chunk_count, error: d.error ?? '' }))
      .sort((a, b) => a.file.localeCompare(b.file)),
  );
  console.log(
    `corpus: ${ready.length} ready, ${corpus.docs.length - ready.length} failed, ${pages} pages, ${chunks} chunks in ${(corpus.ms / 1000).toFixed(1)} s ` +
      `-> ${(pages / (corpus.ms / 1000)).toFixed(1)} pages/s, ${(chunks / (corpus.ms / 1000)).toFixed(1)} chunks/s; peak RSS ${Math.round(peakCorpus.mb)} MB`,
  );

  for (const big of ['DA-619p.pdf', 'handbook-872p.docx']) {
    const kb = await newKb(server, key, big);
    const peak = { mb: rssMb(server.child.pid!) };
    const t0 = performance.now();
    const id = await upload(server, key, kb, big);
    const { docs } = await waitAll(server, key, kb, [id], peak);
    const d = docs[0]!;
    console.log(
      `${big}: ${d.status} in ${((performance.now() - t0) / 1000).toFixed(1)} s (upload to ready), ${d.pages ?? '-'} pages, ${d.chunk_count} chunks, peak RSS ${Math.round(peak.mb)} MB`,
    );
  }
} finally {
  await server.stop();
  cluster?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
