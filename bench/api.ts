/**
 * API benchmark: cold start of `npm start`, memory after start, and GET /api/kbs latency under 50
 * concurrent clients (autocannon), on the embedded default and on real PostgreSQL.
 *   npm run bench -- api [--duration 10] [--connections 50] [--only embedded|postgres]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { startGuardedCluster } from '../test/infra/run-cleanup';
import { rssMb, startServer, type StartedServer } from '../test/helpers/server-process';

const { values } = parseArgs({
  options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '50' }, only: { type: 'string' } },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
// Measure the API, not the per-key limiter (which would answer most of these with 429).
const NO_RATE_LIMIT = { RATE_LIMIT_PER_MINUTE: '100000000' };

async function load(server: StartedServer, apiKey: string) {
  // A few KBs so the listing does real work (count of documents per KB).
  for (const name of ['Handbook', 'Products']) {
    await fetch(`${server.url}/api/kbs`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
  }
  const result = await autocannon({ url: `${server.url}/api/kbs`, connections, duration, headers: { 'x-api-key': apiKey } });
  return {
    requests: result.requests.total,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

async function benchEmbedded() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-bench-api-'));
  try {
    const first = await startServer({ DATA_DIR: dataDir, DATABASE_URL: '', ...NO_RATE_LIMIT });
    const firstRss = rssMb(first.child.pid!);
    const apiKey = first.apiKey!;
    await first.stop();
    const second = await startServer({ DATA_DIR: dataDir, DATABASE_URL: '', ...NO_RATE_LIMIT });
    const rss = rssMb(second.child.pid!);
    const stats = await load(second, apiKey);
    const rssAfter = rssMb(second.child.pid!);
    await second.stop();
    return { db: 'embedded', firstStartMs: first.startupMs, restartMs: second.startupMs, rssAfterStartMb: firstRss, rssAfterRestartMb: rss, rssAfterLoadMb: rssAfter, ...stats };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function benchPostgres() {
  const cluster = process.env.TEST_DATABASE_URL ? null : await startGuardedCluster();
  const admin = process.env.TEST_DATABASE_URL ?? cluster!.url;
  const url = new URL(admin);
  const dbName = `gw_bench_${process.pid}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`create database ${dbName}`);
  await c.end();
  url.pathname = `/${dbName}`;
  try {
    const server = await startServer({ DATABASE_URL: url.toString(), ...NO_RATE_LIMIT });
    const rss = rssMb(server.child.pid!);
    const stats = await load(server, server.apiKey!);
    const rssAfter = rssMb(server.child.pid!);
    await server.stop();
    return { db: 'postgres', firstStartMs: server.startupMs, restartMs: NaN, rssAfterStartMb: rss, rssAfterRestartMb: NaN, rssAfterLoadMb: rssAfter, ...stats };
  } finally {
    cluster?.stop();
  }
}

const rows = [];
if (values.only !== 'postgres') rows.push(await benchEmbedded());
if (values.only !== 'embedded') rows.push(await benchPostgres());
console.log(`\nGET /api/kbs, ${connections} concurrent clients for ${duration}s`);
console.table(
  rows.map((r) => ({
    database: r.db,
    'first start (ms)': Math.round(r.firstStartMs),
    'restart (ms)': Number.isNaN(r.restartMs) ? '-' : Math.round(r.restartMs),
    'RSS after start (MB)': Math.round(r.rssAfterStartMb),
    'RSS after load (MB)': Math.round(r.rssAfterLoadMb),
    'req/s': r.rps,
    'p50 (ms)': r.p50,
    'p99 (ms)': r.p99,
    errors: r.errors,
  })),
);
