/** Runs of the abuse driver (test/helpers/abuse.ts) against a started server: test/e2e/abuse.test.ts and bench/abuse.ts. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { measureNeighbour, percentile, sampleRequests, send, slowloris, type Outcome, type Target } from './abuse';
import { discoverEndpoints, type Endpoint } from './abuse-endpoints';
import { rssMb, type StartedServer } from './server-process';

/**
 * Documented in docs/security.md: the server's resident memory under abuse, embedded database and
 * inline worker included. The bound is 1.5 GB: the embedded database runs in a thread of its own
 * (its own heap and WebAssembly memory), which puts the flood's peak near 1,300 MB.
 */
export const RSS_BOUND_MB = 1_500;
/** Documented in docs/security.md: another organisation's p95 while one floods, on a loaded 2-core CI machine. */
export const NEIGHBOUR_P95_MS = 3_000;

const ROOT = path.resolve(import.meta.dirname, '../..');

export type Orgs = { attacker: Target; victim: Target };

async function createOrg(dataDir: string, databaseUrl: string): Promise<string> {
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      ['src/app-bundle/launch.mjs', 'cli', 'org', 'create', '--name', `Victim ${Date.now()}`, '--json'],
      { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }, timeout: 120_000 },
      (err, out, stderr) => (err ? reject(new Error(stderr)) : resolve(out)),
    ),
  );
  return JSON.parse(stdout).api_key as string;
}

async function target(url: string, key: string): Promise<Target> {
  const headers = { 'x-api-key': key };
  const kb = (await (await fetch(`${url}/api/kbs`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{"name":"abuse"}' })).json()) as any;
  const form = new FormData();
  form.set('kb_id', kb.kb.id);
  form.set('file', new Blob(['Refunds are issued within 14 days. Shipping takes 3 days.']), 'policy.txt');
  const doc = (await (await fetch(`${url}/api/ingest/upload`, { method: 'POST', headers, body: form })).json()) as any;
  return { url, key, kbId: kb.kb.id, docId: doc.document.id };
}

/** `databaseUrl`: the server's DATABASE_URL ('' for the embedded database in `dataDir`). */
export async function setUpOrgs(server: StartedServer, dataDir: string, databaseUrl = ''): Promise<Orgs> {
  const victimKey = await createOrg(dataDir, databaseUrl);
  return { attacker: await target(server.url, server.apiKey!), victim: await target(server.url, victimKey) };
}

function watchRss(pid: number) {
  let peak = rssMb(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssMb(pid));
    } catch {
      // the process is gone: the exit-code assertion reports it
    }
  }, 200);
  return { stop: () => (clearInterval(timer), peak) };
}

async function pool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

export async function abuseRun(server: StartedServer, orgs: Orgs, opts: { perEndpoint: number; concurrency: number; seed: number }) {
  const endpoints = await discoverEndpoints(server.url, orgs.attacker.key);
  // Generated before the clock starts: generating (2 MB strings, the bombs) blocks this process's
  // event loop for seconds, which the neighbour's first request would otherwise be timed with.
  const samples = sampleRequests(endpoints, orgs.attacker, opts.perEndpoint, opts.seed);
  const rss = watchRss(server.child.pid!);
  const stop = new AbortController();
  const neighbour = measureNeighbour(orgs.victim, stop.signal);
  const slow = [slowloris(server.url), slowloris(server.url), slowloris(server.url)];
  const outcomes: Array<Outcome & { endpoint: Endpoint }> = [];
  const started = performance.now();
  await pool(samples, opts.concurrency, async (r) => void outcomes.push({ ...(await send(orgs.attacker, r)), endpoint: r.endpoint }));
  const seconds = (performance.now() - started) / 1000;
  const slowloris_ = await Promise.all(slow);
  stop.abort();
  const n = await neighbour;
  const byStatus: Record<number, number> = {};
  for (const o of outcomes) byStatus[o.status] = (byStatus[o.status] ?? 0) + 1;
  // An endpoint whose every request missed its route was not attacked at all.
  const unreached = endpoints.filter((e) => !outcomes.some((o) => o.endpoint === e && !o.unmatched)).map((e) => e.name);
  return {
    endpoints,
    requests: samples.length,
    unreached,
    problems: outcomes.flatMap((o) => (o.problem ? [o.problem] : [])),
    byStatus,
    seconds,
    attackerP95: percentile(outcomes.map((o) => o.ms), 95),
    peakRssMb: rss.stop(),
    slowloris: slowloris_,
    neighbour: n,
    neighbourP95: { kbs: percentile(n.kbs, 95), search: percentile(n.search, 95) },
  };
}

/** One organisation floods with what used to hurt most; the other one's latency is measured. */
export async function floodRun(server: StartedServer, orgs: Orgs, opts: { seconds: number; concurrency: number }) {
  const { attacker } = orgs;
  const rss = watchRss(server.child.pid!);
  const stop = new AbortController();
  const neighbour = measureNeighbour(orgs.victim, stop.signal);
  const statuses: number[] = [];
  const aliases = `{ ${Array.from({ length: 15 }, (_, i) => `a${i}: search(kbId: "${attacker.kbId}", query: "refunds ${i}") { answer }`).join(' ')} }`;
  const kinds = [
    () => fetch(`${attacker.url}/graphql`, { method: 'POST', headers: { 'x-api-key': attacker.key, 'content-type': 'application/json' }, body: JSON.stringify({ query: aliases }) }),
    () => {
      const form = new FormData();
      form.set('kb_id', attacker.kbId);
      form.set('file', new Blob(['word '.repeat(200_000)]), 'big.txt');
      return fetch(`${attacker.url}/api/ingest/upload`, { method: 'POST', headers: { 'x-api-key': attacker.key }, body: form });
    },
    () => fetch(`${attacker.url}/api/ingest/url`, { method: 'POST', headers: { 'x-api-key': attacker.key, 'content-type': 'application/json' }, body: JSON.stringify({ kb_id: attacker.kbId, url: `${attacker.url}/api/openapi.json`, max_pages: 5 }) }),
    () => fetch(`${attacker.url}/api/rag/search`, { method: 'POST', headers: { 'x-api-key': attacker.key, 'content-type': 'application/json' }, body: JSON.stringify({ kb_id: attacker.kbId, query: 'refunds shipping days' }) }),
  ];
  const until = performance.now() + opts.seconds * 1000;
  await Promise.all(
    Array.from({ length: opts.concurrency }, async (_, worker) => {
      for (let i = worker; performance.now() < until; i++) {
        const res = await kinds[i % kinds.length]!().catch(() => null);
        statuses.push(res?.status ?? 0);
        await res?.arrayBuffer().catch(() => {});
      }
    }),
  );
  stop.abort();
  const n = await neighbour;
  const byStatus: Record<number, number> = {};
  for (const s of statuses) byStatus[s] = (byStatus[s] ?? 0) + 1;
  return { attackerStatuses: statuses, byStatus, peakRssMb: rss.stop(), neighbour: n, neighbourP95: { kbs: percentile(n.kbs, 95), search: percentile(n.search, 95) } };
}
