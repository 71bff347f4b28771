/**
 * The Procfile, deployed as a platform would, through foreman (`nf`) on a PostgreSQL + pgvector of
 * its own (it is restarted below): two racing releases, then 2 web and 2 worker processes. A corpus
 * is uploaded and a site crawled through both web processes; every document ends ready or failed
 * with a reason, once, with no duplicated chunk and no job completed twice; answers and widget
 * tokens are the same on either web process. Faults: a worker SIGKILLed in a large PDF (the other
 * takes it over within CRASHED_JOB_RECOVERY_BOUND_MS). Still to add: a web process SIGTERMed
 * under load, and PostgreSQL restarted under load (cluster.restart() is ready for it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CRASHED_JOB_RECOVERY_BOUND_MS } from '../../src/services/workers/heartbeats';
import { startThrowawayCluster } from '../infra/postgres-cluster';
import { startFixtureServer, type FixtureServer } from '../ingest/crawl-fixture-server';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DOCS = path.resolve(ROOT, '../shared/data/docs');
const NF = path.join(ROOT, 'node_modules/.bin/nf');

let cluster: Awaited<ReturnType<typeof startThrowawayCluster>>;
let site: FixtureServer;
const procs: { name: string; child: ChildProcess; out: string }[] = [];
let env: Record<string, string>;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** `nf start <type>`: foreman runs that line of the Procfile; each in its own process group. */
function foreman(type: string, port?: number) {
  const args = ['start', type, ...(port ? ['-p', String(port)] : [])];
  const child = spawn(NF, args, { cwd: ROOT, env: { ...process.env, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const entry = { name: `${type}${port ? `:${port}` : ''}`, child, out: '' };
  child.stdout!.on('data', (d) => (entry.out += d));
  child.stderr!.on('data', (d) => (entry.out += d));
  procs.push(entry);
  return entry;
}

const exited = (child: ChildProcess) => new Promise<void>((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', () => r())));

async function query<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** The node process behind a Procfile line: the one running `script` with PORT (web) or any. */
function nodePid(script: string, port?: number): number {
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmd.startsWith(process.execPath) && !cmd.startsWith('node')) continue;
      if (!cmd.includes(script)) continue;
      if (port && !readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`PORT=${port}`)) continue;
      return Number(pid);
    } catch {
      // gone meanwhile
    }
  }
  throw new Error(`no process runs ${script}${port ? ` on ${port}` : ''}`);
}

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 90_000, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn().catch(() => null);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${procs.map((p) => `--- ${p.name}\n${p.out.slice(-3000)}`).join('\n')}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

beforeAll(async () => {
  cluster = await startThrowawayCluster();
  site = await startFixtureServer();
  env = {
    DATABASE_URL: cluster.url,
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    CRAWL_ALLOW_PRIVATE: 'true',
    WORKER_CONCURRENCY: '2',
    RATE_LIMIT_PER_MINUTE: '100000',
    DATABASE_POOL_SIZE: '4',
  };
}, 60_000);

afterAll(async () => {
  for (const p of procs) {
    try {
      process.kill(-p.child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await site?.close();
  cluster?.stop();
});

it('deploys the Procfile with 2 web and 2 worker processes, and survives a killed worker', async () => {
  // Release: two racing releases both succeed; every migration is applied once.
  const releases = [foreman('release'), foreman('release')];
  await Promise.all(releases.map((r) => exited(r.child)));
  for (const r of releases) expect(r.out).toMatch(/database migrated \(postgres\)/);
  const migrated = await query<{ name: string; n: number }>('select name, count(*)::int as n from kysely_migration group by name');
  expect(migrated.length).toBeGreaterThan(4);
  expect(migrated.every((m) => m.n === 1)).toBe(true);

  const cli = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'org', 'create', '--name', 'Acme', '--plan', 'pro', '--json'], { cwd: ROOT, env: { ...process.env, ...env, LOG_LEVEL: 'warn' } });
  let cliOut = '';
  cli.stdout!.on('data', (d) => (cliOut += d));
  await exited(cli);
  const key = JSON.parse(cliOut.slice(cliOut.indexOf('{'))).api_key as string;

  const ports = [await freePort(), await freePort()];
  const webs = ports.map((port) => ({ port, url: `http://127.0.0.1:${port}`, proc: foreman('web', port) }));
  foreman('worker');
  foreman('worker');
  for (const w of webs) await until(`web on ${w.port}`, async () => (await fetch(`${w.url}/readyz`)).ok, 120_000);
  // Bound to every interface, as the Procfile says.
  for (const w of webs) expect(w.proc.out).toContain(`listening on http://0.0.0.0:${w.port}`);
  await until('two worker processes', async () => (await query<{ n: number }>('select count(*)::int as n from worker_heartbeats'))[0]!.n === 2, 120_000);

  const [a, b] = webs as [(typeof webs)[0], (typeof webs)[0]];
  const json = { 'x-api-key': key, 'content-type': 'application/json' };
  const kb = ((await (await fetch(`${a.url}/api/kbs`, { method: 'POST', headers: json, body: '{"name":"Manuals"}' })).json()) as { kb: { id: string } }).kb;
  const upload = async (web: typeof a, file: string) => {
    const form = new FormData();
    form.set('file', new Blob([readFileSync(path.join(DOCS, file))]), file);
    form.set('kb_id', kb.id);
    const res = await fetch(`${web.url}/api/ingest/upload`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
    expect(res.status).toBe(202);
    return ((await res.json()) as { document: { id: string } }).document.id;
  };

  // A small corpus through both web processes, and a crawl.
  const corpus = ['category-level.docx', '160F-2019.pdf', 'password.pdf', '20080102X00002.pdf'];
  const ids = await Promise.all(corpus.map((f, i) => upload(i % 2 ? b : a, f)));
  const crawl = await fetch(`${b.url}/api/ingest/url`, { method: 'POST', headers: json, body: JSON.stringify({ url: `${site.origin}/`, kb_id: kb.id, max_pages: 10 }) });
  expect(crawl.status).toBe(202);
  ids.push(((await crawl.json()) as { document: { id: string } }).document.id);
  const settled = async () => {
    const rows = await query<{ id: string; status: string; error: string | null }>('select id, status, error from documents where kb_id = $1', [kb.id]);
    return rows.every((r) => r.status !== 'processing') ? rows : null;
  };
  const done = await until('the corpus to settle', settled, 150_000, 500);
  expect(done).toHaveLength(ids.length);
  for (const d of done) expect(d.status === 'ready' || (d.status === 'failed' && !!d.error), JSON.stringify(d)).toBe(true);
  expect(done.find((d) => d.id === ids[2])).toMatchObject({ status: 'failed', error: expect.stringMatching(/password/i) });

  // A worker SIGKILLed in the middle of a large PDF: the other takes the job over within the bound.
  const big = await upload(a, 'DA-619p.pdf');
  const holder = await until('a worker to lock the PDF', async () => (await query<{ locked_by: string | null }>('select locked_by from graphile_worker.jobs where key = $1', [`ingest:${big}`]))[0]?.locked_by, 60_000, 100);
  await new Promise((r) => setTimeout(r, 500));
  const [victim] = await query<{ pid: number }>('select pid from worker_heartbeats where $1 = any(worker_ids)', [holder]);
  process.kill(victim!.pid, 'SIGKILL');
  const killedAt = Date.now();
  await until('another worker to take the PDF', async () => {
    const [job] = await query<{ locked_by: string | null }>('select locked_by from graphile_worker.jobs where key = $1', [`ingest:${big}`]);
    return !job || (job.locked_by !== null && job.locked_by !== holder);
  }, CRASHED_JOB_RECOVERY_BOUND_MS + 10_000, 200);
  const recoveredMs = Date.now() - killedAt;
  console.log(`crashed worker's job taken over after ${recoveredMs} ms`);
  expect(recoveredMs).toBeLessThan(CRASHED_JOB_RECOVERY_BOUND_MS);
  await until('the PDF to be ready', async () => (await query<{ status: string }>('select status from documents where id = $1', [big]))[0]!.status === 'ready', 150_000, 500);

  // Exactly once: no duplicated chunk, chunk_count matches, no job completed twice.
  expect(await query('select document_id, position from chunks group by 1, 2 having count(*) > 1')).toEqual([]);
  expect(await query('select d.id from documents d where d.chunk_count is distinct from (select count(*) from chunks c where c.document_id = d.id) and d.status = $1', ['ready'])).toEqual([]);
  const completions = procs.flatMap((p) => p.out.split('\n').filter((l) => /Completed task \d+ /.test(l)).map((l) => `${p.name}: ${l}`));
  const jobId = (line: string) => /Completed task (\d+) /.exec(line)![1];
  expect(completions.length).toBeGreaterThanOrEqual(ids.length + 1);
  expect(completions.filter((l, i) => completions.findIndex((o) => jobId(o) === jobId(l)) !== i)).toEqual([]);

  // The same answer from either web process; a widget token minted by one works on the other.
  const ask = (web: typeof a) => fetch(`${web.url}/api/rag/search`, { method: 'POST', headers: json, body: JSON.stringify({ kb_id: kb.id, query: 'What is the maximum range?' }) }).then((r) => r.json());
  expect(await ask(a)).toEqual(await ask(b));
  const widget = { origin: 'https://shop.example', 'content-type': 'application/json' };
  const session = (await (await fetch(`${a.url}/api/widget/session`, { method: 'POST', headers: widget, body: JSON.stringify({ org: 'acme', kb: kb.id }) })).json()) as { token: string };
  const chat = await fetch(`${b.url}/api/widget/chat`, { method: 'POST', headers: { ...widget, authorization: `Bearer ${session.token}` }, body: '{"message":"What is the maximum range?"}' });
  expect(chat.status).toBe(200);
  expect(await chat.text()).toContain('event: done');

}, 300_000);
