/**
 * The property-based abuse suite against a real server process (`npm start`, embedded database,
 * inline worker), keyed, keyless and with a junk key, over every REST route, GraphQL operation and
 * tRPC procedure: generated hostile JSON, NUL/lone-surrogate/huge strings, wrong types, truncated
 * and malformed multipart, decompression bombs, slowloris clients. Invariants: no 5xx, no non-JSON
 * error, the process never exits, its RSS stays under RSS_BOUND_MB, and another organisation's
 * GET /api/kbs and search keep a p95 under NEIGHBOUR_P95_MS meanwhile. Then a noisy neighbour
 * floods (GraphQL aliases, uploads, crawls, searches) and the other organisation's p95 is held to
 * the same bound. `npm run bench -- abuse` runs the same for longer and prints the figures.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { abuseRun, floodRun, setUpOrgs, RSS_BOUND_MB, NEIGHBOUR_P95_MS, type Orgs } from '../helpers/abuse-run';
import { startServer, type StartedServer } from '../helpers/server-process';

const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-abuse-'));
let server: StartedServer;
let orgs: Orgs;

beforeAll(async () => {
  server = await startServer({ DATA_DIR: dataDir, DATABASE_URL: '', CRAWL_ALLOW_PRIVATE: 'true', HTTP_HEADERS_TIMEOUT_MS: '3000' });
  orgs = await setUpOrgs(server, dataDir);
}, 240_000);
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('abuse', () => {
  it('generated hostile requests: no 5xx, no non-JSON error, no exit, bounded RSS and neighbour latency', async () => {
    const seed = Number(process.env.ABUSE_SEED ?? Date.now() % 2 ** 31);
    const report = await abuseRun(server, orgs, { requests: 160, concurrency: 4, seed });
    expect(report.problems, `seed ${seed} (ABUSE_SEED=${seed} to replay)`).toEqual([]);
    expect(server.child.exitCode, server.output()).toBeNull();
    expect(report.peakRssMb).toBeLessThan(RSS_BOUND_MB);
    expect(report.slowloris.every((a) => a === '' || /^HTTP\/1\.1 408/.test(a)), report.slowloris.join('\n')).toBe(true);
    expect(report.neighbour.failures).toEqual([]);
    expect(report.neighbourP95.kbs).toBeLessThan(NEIGHBOUR_P95_MS);
    expect(report.neighbourP95.search).toBeLessThan(NEIGHBOUR_P95_MS);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('a noisy neighbour (aliases, uploads, crawls, searches) leaves the other organisation its latency', async () => {
    const report = await floodRun(server, orgs, { seconds: 12, concurrency: 6 });
    expect(server.child.exitCode, server.output()).toBeNull();
    expect(report.neighbour.failures).toEqual([]);
    expect(report.neighbourP95.kbs).toBeLessThan(NEIGHBOUR_P95_MS);
    expect(report.neighbourP95.search).toBeLessThan(NEIGHBOUR_P95_MS);
    expect(report.attackerStatuses.filter((s) => s >= 500)).toEqual([]);
    expect(report.peakRssMb).toBeLessThan(RSS_BOUND_MB);
  });
});
