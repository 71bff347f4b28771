/**
 * The ingestion benchmarks' service: `src/server.ts` as `npm start` runs it, on the embedded database
 * (worker in-process) or on a fresh PostgreSQL database (then with a pg client, for parts that count
 * chunk rows), plus the few REST calls they share.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startGuardedCluster } from '../../test/infra/run-cleanup';
import { rssMb, startServer, type StartedServer } from '../../test/helpers/server-process';

export const DOCS = path.resolve(import.meta.dirname, '../../../shared/data/docs');

export type Doc = {
  id: string;
  filename: string;
  status: string;
  chunk_count: number;
  pages: number | null;
  error: string | null;
  ocr_pages: number[];
  last_crawled_at: string | null;
  last_crawl_changes: { added: number; changed: number; removed: number; unchanged: number } | null;
};

/** `dataDir` and `databaseUrl` as the server has them, for the CLI (another organisation). */
export type BenchServer = { server: StartedServer; key: string; sql: pg.Client | null; dataDir: string; databaseUrl: string; stop: () => Promise<void> };

export async function startBenchServer(db: 'embedded' | 'postgres', extraEnv: Record<string, string> = {}): Promise<BenchServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-bench-ingest-'));
  const cluster = db === 'postgres' && !process.env.TEST_DATABASE_URL ? await startGuardedCluster() : null;
  let env: Record<string, string> = { DATA_DIR: dataDir, DATABASE_URL: '', RATE_LIMIT_PER_MINUTE: '100000000', ...extraEnv };
  let sql: pg.Client | null = null;
  if (db === 'postgres') {
    const admin = process.env.TEST_DATABASE_URL ?? cluster!.url;
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    const name = `gw_bench_ingest_${process.pid}_${Date.now()}`;
    await c.query(`create database ${name}`);
    await c.end();
    const u = new URL(admin);
    u.pathname = `/${name}`;
    env = { ...env, DATABASE_URL: u.toString(), WORKER_INLINE: 'true' };
    sql = new pg.Client({ connectionString: u.toString() });
  }
  const server = await startServer(env);
  await sql?.connect();
  return {
    server,
    key: server.apiKey!,
    sql,
    dataDir,
    databaseUrl: env.DATABASE_URL ?? '',
    async stop() {
      await sql?.end();
      await server.stop();
      cluster?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function newKb(b: BenchServer, name: string): Promise<string> {
  const res = await fetch(`${b.server.url}/api/kbs`, { method: 'POST', headers: { 'x-api-key': b.key, 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
  return ((await res.json()) as { kb: { id: string } }).kb.id;
}

export function fileForm(kbId: string, files: Array<{ name: string; bytes: Uint8Array }>): FormData {
  const form = new FormData();
  for (const f of files) form.append('file', new Blob([f.bytes as BlobPart]), f.name);
  form.set('kb_id', kbId);
  return form;
}

export async function getDoc(b: BenchServer, kbId: string, id: string): Promise<Doc> {
  const res = await fetch(`${b.server.url}/api/kbs/${kbId}/documents/${id}`, { headers: { 'x-api-key': b.key } });
  return ((await res.json()) as { document: Doc }).document;
}

/** Polls until none of `ids` is processing; samples the server's RSS meanwhile when `peak` is given. */
export async function waitAll(b: BenchServer, kbId: string, ids: string[], peak?: { mb: number }): Promise<{ docs: Doc[]; ms: number }> {
  const t0 = performance.now();
  const want = new Set(ids);
  const sampler = peak ? setInterval(() => (peak.mb = Math.max(peak.mb, rssMb(b.server.child.pid!))), 50) : null;
  try {
    for (;;) {
      const res = await fetch(`${b.server.url}/api/kbs/${kbId}/documents`, { headers: { 'x-api-key': b.key } });
      const docs = ((await res.json()) as { documents: Doc[] }).documents.filter((d) => want.has(d.id));
      if (docs.length === want.size && docs.every((d) => d.status !== 'processing')) return { docs, ms: performance.now() - t0 };
      if (performance.now() - t0 > 30 * 60_000) throw new Error('ingestion did not finish in 30 min');
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    if (sampler) clearInterval(sampler);
  }
}

export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
