/**
 * The Procfile, deployed as a platform would, through foreman (`nf`) on a PostgreSQL + pgvector of
 * its own (it is stopped and started below, so never the shared test cluster): two racing releases,
 * then 2 web and 2 worker processes. A corpus is uploaded and a site crawled through both web
 * processes; every document ends ready or failed with a reason, once, with no duplicated chunk and
 * no job completed twice; answers and widget tokens are the same on either web process.
 *
 * Faults, each under load, in order (each test goes on with the deployment the previous one left):
 * - a worker SIGKILLed in a large PDF: the other takes it over within CRASHED_JOB_RECOVERY_BOUND_MS;
 * - a web process SIGTERMed: what it has in flight (a streamed answer, an upload still sending its
 *   body) finishes, it exits cleanly within the drain bound, and new requests go to the other;
 * - PostgreSQL stopped (fast shutdown) for a few seconds and started again: meanwhile requests get
 *   clean 503s, never a 500; every process reconnects; every accepted upload ends ready once.
 *
 * The load's client plays the platform's router: each request on its own connection, to the web
 * processes in turn; a refused connection (a process that stopped listening) is retried on the
 * next one, and a 503 is retried after its Retry-After.
 *
 * The model is a fake OpenAI on loopback whose streamed answers take ~2 s, so that a stream is
 * surely in flight when the web process is told to stop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CRASHED_JOB_RECOVERY_BOUND_MS } from '../../src/services/workers/heartbeats';
import { startThrowawayCluster } from '../infra/postgres-cluster';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server';
import { startFixtureServer, type FixtureServer } from '../ingest/crawl-fixture-server';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DOCS = path.resolve(ROOT, '../shared/data/docs');
const NF = path.join(ROOT, 'node_modules/.bin/nf');

let cluster: Awaited<ReturnType<typeof startThrowawayCluster>>;
let site: FixtureServer;
let openai: FakeOpenAI;
/** SHUTDOWN_DRAIN_MS of the web processes. */
const DRAIN_BOUND_MS = 10_000;
/** How the web process (`npm start`) reads in /proc/<pid>/cmdline, arguments NUL-separated. */
const WEB_SCRIPT = 'src/app-bundle/launch.mjs\0server';
const ANSWER = 'The maximum range is given in the specifications table of the manual, under performance, for a standard load and calm weather conditions at sea level.';
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

type Web = { port: number; url: string; proc: ReturnType<typeof foreman> };
const startWeb = (port: number): Web => ({ port, url: `http://127.0.0.1:${port}`, proc: foreman('web', port) });
/** What the first test deployed; the fault tests go on with it. */
let deployed: { key: string; kbId: string; webs: Web[] };

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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

type Sent = { op: string; port: number; at: number; status: number; retryAfter: string | null; body: string };

/**
 * The platform's router, as the load's client: each request on its own connection (`connection:
 * close`: no pooled connection outlives a drain), to the web processes in turn; a refused
 * connection goes to the next one. So does a connection reset before any answer by a process the
 * platform has told to stop (`stopping`): one the kernel had queued, not yet accepted, when the
 * listener closed is reset by the kernel, not by the server, and the platform that sent SIGTERM
 * knows to send it elsewhere. Anything else that fails (a reset elsewhere, a cut response) is logged
 * with status 0: a lost request.
 */
function createRouter(webs: Web[]) {
  let turn = 0;
  const log: Sent[] = [];
  const router = { log, refused: 0, resetWhileStopping: 0, stopping: new Set<number>(), send, eventually };
  async function send(op: string, path: string, init: () => RequestInit): Promise<Sent> {
    for (let attempt = 0; attempt < webs.length * 3; attempt++) {
      const web = webs[turn++ % webs.length]!;
      const at = Date.now();
      try {
        const req = init();
        const res = await fetch(`${web.url}${path}`, { ...req, headers: { ...(req.headers as Record<string, string>), connection: 'close' } });
        const sent = { op, port: web.port, at, status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.text() };
        log.push(sent);
        return sent;
      } catch (err) {
        const code = (err as { cause?: { code?: string } }).cause?.code;
        if (code === 'ECONNREFUSED') {
          router.refused++;
          continue;
        }
        if ((code === 'ECONNRESET' || code === 'EPIPE') && router.stopping.has(web.port)) {
          router.resetWhileStopping++;
          continue;
        }
        const sent = { op, port: web.port, at, status: 0, retryAfter: null, body: `${String(err)} ${code ?? ''}` };
        log.push(sent);
        return sent;
      }
    }
    throw new Error(`every web process refused ${op}`);
  }
  /** Until the answer is not a 503, waiting its Retry-After between tries, as a client should. */
  async function eventually(op: string, path: string, init: () => RequestInit, timeoutMs = 60_000): Promise<Sent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const sent = await send(op, path, init);
      if (sent.status !== 503 || Date.now() > deadline) return sent;
      await sleep(Math.min(2, Number(sent.retryAfter ?? 1)) * 1000);
    }
  }
  return router;
}

/** `loops` run back to back until `during` is over and `afterMs` more have passed. */
async function underLoad(loops: (() => Promise<unknown>)[], during: () => Promise<void>, afterMs: number) {
  let running = true;
  const running$ = loops.map(async (op) => {
    while (running) await op();
  });
  try {
    await during();
    await sleep(afterMs);
  } finally {
    running = false;
    await Promise.all(running$);
  }
}

/** The load both fault tests put on the web processes: searches, streamed answers, uploads. */
function loadOn(router: ReturnType<typeof createRouter>, opts: { streams: boolean }) {
  const { key, kbId } = deployed;
  const json = { 'x-api-key': key, 'content-type': 'application/json' };
  const accepted: string[] = [];
  let n = 0;
  const upload = async () => {
    const i = n++;
    const sent = await router.eventually('upload', '/api/ingest/upload', () => {
      const form = new FormData();
      form.set('kb_id', kbId);
      form.set('file', new Blob([`Maintenance note ${i}-${Date.now()}: inspect the hydraulic pump of unit ${i} every ${i + 10} hours.`]), `note-${i}.txt`);
      return { method: 'POST', headers: { 'x-api-key': key }, body: form };
    });
    if (sent.status === 202) accepted.push((JSON.parse(sent.body) as { document: { id: string } }).document.id);
  };
  const search = (stream: boolean) => () =>
    router.eventually(stream ? 'stream' : 'search', '/api/rag/search', () => ({
      method: 'POST',
      headers: json,
      body: JSON.stringify({ kb_id: kbId, query: 'What is the maximum range?', ...(stream ? { stream: true } : {}) }),
    }));
  return { accepted, loops: [search(false), search(false), upload, ...(opts.streams ? [search(true), search(true)] : [])] };
}

/** Every answer was a success or a clean 503 (JSON `unavailable` with Retry-After): nothing lost, no 500. */
function expectOnlySuccessesAndClean503s(log: Sent[]) {
  const bad = log.filter((s) => {
    if (s.status >= 200 && s.status < 300) return false;
    if (s.status !== 503 || !s.retryAfter) return true;
    const body = JSON.parse(s.body) as { error?: { code?: string; message?: string } };
    return body.error?.code !== 'unavailable' || !body.error.message;
  });
  expect(bad).toEqual([]);
  // A stream answered 200 ran to its end (not cut, no error event).
  const streams = log.filter((s) => s.op === 'stream' && s.status === 200);
  expect(streams.filter((s) => !s.body.includes('event: done'))).toEqual([]);
}

/** Every accepted upload ends ready, once; no duplicated chunk; no job completed twice. */
async function expectExactlyOnce(ids: string[]) {
  const rows = await until(
    'the uploads to be ready',
    async () => {
      const r = await query<{ id: string; status: string; error: string | null }>('select id, status, error from documents where id = any($1)', [ids]);
      return r.length === ids.length && r.every((d) => d.status !== 'processing') ? r : null;
    },
    120_000,
    500,
  );
  expect(rows.filter((d) => d.status !== 'ready')).toEqual([]);
  expect(await query('select document_id, position from chunks group by 1, 2 having count(*) > 1')).toEqual([]);
  expect(await query("select d.id from documents d where d.status = 'ready' and d.chunk_count is distinct from (select count(*) from chunks c where c.document_id = d.id)")).toEqual([]);
  const lines = procs.flatMap((p) => p.out.split('\n'));
  const completions = lines.filter((l) => /Completed task \d+ /.test(l));
  const jobId = (line: string) => /Completed task (\d+) /.exec(line)![1]!;
  // graphile-worker logs "Completed" before it commits the completion; when the database goes away
  // in between, the worker dies ("Failed to release job 'N' after success"), its lock is freed and
  // the job runs again (at least once, by design; the checks above prove the re-run changed
  // nothing). Any other second completion is a job run twice.
  const unreleased = new Set(lines.flatMap((l) => /Failed to release job '(\d+)' after success/.exec(l)?.[1] ?? []));
  const twice = completions.filter((l, i) => completions.findIndex((o) => jobId(o) === jobId(l)) !== i);
  // Each job run twice with every line naming it, so a failure shows why.
  const runTwice = twice.filter((l) => !unreleased.has(jobId(l))).map((l) => lines.filter((o) => o.includes(`task ${jobId(l)} `) || o.includes(`job '${jobId(l)}'`)));
  expect(runTwice).toEqual([]);
}

/** An upload to `web` whose body is still arriving: half now, the rest when finish() is called. */
function slowUpload(web: Web, text: string) {
  const boundary = `gw${Date.now()}`;
  const body = Buffer.from(
    `--${boundary}\r\ncontent-disposition: form-data; name="kb_id"\r\n\r\n${deployed.kbId}\r\n` +
      `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="slow-note.txt"\r\ncontent-type: text/plain\r\n\r\n${text}\r\n--${boundary}--\r\n`,
  );
  const req = request(`${web.url}/api/ingest/upload`, {
    method: 'POST',
    agent: false,
    headers: { 'x-api-key': deployed.key, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length },
  });
  const done = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let b = '';
      res.on('data', (d) => (b += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: b }));
    });
    req.on('error', reject);
  });
  const half = Math.floor(body.length / 2);
  req.write(body.subarray(0, half));
  return { done, finish: () => req.end(body.subarray(half)) };
}

beforeAll(async () => {
  cluster = await startThrowawayCluster();
  site = await startFixtureServer();
  // ~25 words at 80 ms: a streamed answer takes about 2 s.
  openai = await startFakeOpenAI({ reply: () => ANSWER, chunkDelayMs: 80 });
  env = {
    OPENAI_API_KEY: openai.apiKey,
    OPENAI_BASE_URL: openai.url,
    SHUTDOWN_DRAIN_MS: String(DRAIN_BOUND_MS),
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
  // For a failure's post-mortem: every process's output, when asked for.
  if (process.env.PROCFILE_LOG) writeFileSync(process.env.PROCFILE_LOG, procs.map((p) => `--- ${p.name}\n${p.out}`).join('\n'));
  for (const p of procs) {
    try {
      process.kill(-p.child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await site?.close();
  await openai?.close();
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

  const cli = spawn(process.execPath, ['src/app-bundle/launch.mjs', 'cli', 'org', 'create', '--name', 'Acme', '--plan', 'pro', '--json'], { cwd: ROOT, env: { ...process.env, ...env, LOG_LEVEL: 'warn' } });
  let cliOut = '';
  cli.stdout!.on('data', (d) => (cliOut += d));
  await exited(cli);
  const key = JSON.parse(cliOut.slice(cliOut.indexOf('{'))).api_key as string;

  const ports = [await freePort(), await freePort()];
  const webs: Web[] = ports.map((port) => startWeb(port));
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
  const jobId = (line: string) => /Completed task (\d+) /.exec(line)![1]!;
  expect(completions.length).toBeGreaterThanOrEqual(ids.length + 1);
  expect(completions.filter((l, i) => completions.findIndex((o) => jobId(o) === jobId(l)) !== i)).toEqual([]);

  // The same answer from either web process; a widget token minted by one works on the other.
  // Scores may differ in the fourth decimal: each process caches its own plan for the vector
  // statement, and an exact scan (planned before ANALYZE) and the HNSW scan can return a slightly
  // different candidate set over which the fused score is normalised. Answer and sources may not.
  type Searched = { answer: string; citations: Array<{ score: number }> };
  const ask = (web: typeof a) => fetch(`${web.url}/api/rag/search`, { method: 'POST', headers: json, body: JSON.stringify({ kb_id: kb.id, query: 'What is the maximum range?' }) }).then((r) => r.json() as Promise<Searched>);
  const [fromA, fromB] = [await ask(a), await ask(b)];
  const withoutScores = (r: Searched) => ({ ...r, citations: r.citations.map(({ score: _, ...c }) => c) });
  expect(withoutScores(fromA)).toEqual(withoutScores(fromB));
  fromA.citations.forEach((c, i) => expect(c.score).toBeCloseTo(fromB.citations[i]!.score, 2));
  const widget = { origin: 'https://shop.example', 'content-type': 'application/json' };
  const session = (await (await fetch(`${a.url}/api/widget/session`, { method: 'POST', headers: widget, body: JSON.stringify({ org: 'acme', kb: kb.id }) })).json()) as { token: string };
  const chat = await fetch(`${b.url}/api/widget/chat`, { method: 'POST', headers: { ...widget, authorization: `Bearer ${session.token}` }, body: '{"message":"What is the maximum range?"}' });
  expect(chat.status).toBe(200);
  expect(await chat.text()).toContain('event: done');
  deployed = { key, kbId: kb.id, webs };

}, 300_000);

it('SIGTERM to a web process under load: its in-flight requests and streams finish, new ones go to the other', async () => {
  const [a, b] = deployed.webs as [Web, Web];
  const router = createRouter(deployed.webs);
  const { accepted, loops } = loadOn(router, { streams: true });
  const pid = nodePid(WEB_SCRIPT, a.port);
  let sigtermAt = 0;
  let exitMs = 0;
  let pinned: { stream: Promise<{ status: number; body: string }>; upload: ReturnType<typeof slowUpload> } | null = null;

  await underLoad(
    loops,
    async () => {
      await sleep(1_000);
      // Pinned on A and in flight when it is told to stop: a streamed answer (~2 s), whose headers
      // have arrived, and an upload whose body is still arriving.
      const streamRes = await fetch(`${a.url}/api/rag/search`, {
        method: 'POST',
        headers: { 'x-api-key': deployed.key, 'content-type': 'application/json' },
        body: JSON.stringify({ kb_id: deployed.kbId, query: 'What is the maximum range?', stream: true }),
      });
      pinned = { stream: streamRes.text().then((body) => ({ status: streamRes.status, body })), upload: slowUpload(a, 'Slow note: the pump pressure is 180 bar. '.repeat(200)) };
      await sleep(200);
      router.stopping.add(a.port);
      process.kill(pid, 'SIGTERM');
      sigtermAt = Date.now();
      await sleep(500);
      pinned.upload.finish();
      await until('web A to exit', async () => !alive(pid), DRAIN_BOUND_MS + 5_000, 50);
      exitMs = Date.now() - sigtermAt;
    },
    2_000,
  );
  console.log(
    `web A drained and exited ${exitMs} ms after SIGTERM; ${router.log.length} requests, ${router.refused} refused connections and ${router.resetWhileStopping} reset ones retried on B`,
  );

  // A finished what it had and exited cleanly, well within the bound, cutting nothing.
  expect(exitMs).toBeLessThan(DRAIN_BOUND_MS);
  await until('web A to log its shutdown', async () => /"cut":0/.test(a.proc.out) && /shut down/.test(a.proc.out), 5_000, 100);
  const stream = await pinned!.stream;
  expect(stream.status).toBe(200);
  expect(stream.body).toContain('event: done');
  expect(stream.body).toContain('sea level');
  const upload = await pinned!.upload.done;
  expect(upload.status).toBe(202);
  accepted.push((JSON.parse(upload.body) as { document: { id: string } }).document.id);

  // New requests went to B: A refused new connections once it stopped listening, and answered a
  // request on a connection it already had (the client's pooled one) with a clean 503; B served the rest.
  expect(router.refused).toBeGreaterThan(0);
  // From when A's handler ran (its own log line), not when the signal was sent: on a loaded machine
  // the handler can run later, and A rightly serves what it accepted before.
  // The listener closes in the same turn as A's "draining: listener closed" line: a request sent after
  // it cannot have reached A's queue.
  const handledAt = Math.max(sigtermAt, ...[...a.proc.out.matchAll(/"time":(\d+)[^\n]*"msg":"draining: listener closed/g)].map((m) => Number(m[1])));
  const after = router.log.filter((s) => s.at > handledAt + 500);
  expect(after.filter((s) => s.port === b.port && s.status < 300).length).toBeGreaterThan(0);
  expect(after.filter((s) => s.port !== b.port && s.status !== 503)).toEqual([]);
  expectOnlySuccessesAndClean503s(router.log);
  expect(router.log.filter((s) => s.op === 'stream' && s.status === 200).length).toBeGreaterThan(0);
  await expectExactlyOnce(accepted);

  // The platform starts a new web process in its place.
  deployed.webs[0] = startWeb(a.port);
  await until('the new web process', async () => (await fetch(`${a.url}/readyz`)).ok, 120_000);
}, 240_000);

it('PostgreSQL restarted under load: clean 503s meanwhile, every process reconnects, nothing is lost', async () => {
  // Back to 2 workers (one was SIGKILLed above).
  foreman('worker');
  await until('two beating workers', async () => (await query<{ n: number }>("select count(*)::int as n from worker_heartbeats where beat_at > now() - interval '3 seconds'"))[0]!.n === 2, 120_000);
  const pids = [...deployed.webs.map((w) => nodePid(WEB_SCRIPT, w.port))];
  const router = createRouter(deployed.webs);
  const { accepted, loops } = loadOn(router, { streams: false });
  let down: Sent | null = null;

  await underLoad(
    loops,
    async () => {
      await sleep(1_500);
      await cluster.stopServer();
      // While it is down: a clean 503 with Retry-After, from either web process.
      down = await router.send('search', '/api/rag/search', () => ({
        method: 'POST',
        headers: { 'x-api-key': deployed.key, 'content-type': 'application/json' },
        body: JSON.stringify({ kb_id: deployed.kbId, query: 'What is the maximum range?' }),
      }));
      await sleep(3_000);
      await cluster.startServer();
    },
    5_000,
  );
  const unavailable = router.log.filter((s) => s.status === 503).length;
  console.log(`PostgreSQL restart: ${router.log.length} requests, ${unavailable} answered 503, ${accepted.length} uploads accepted`);

  expect(down).toMatchObject({ status: 503, retryAfter: expect.stringMatching(/^\d+$/) });
  expect(JSON.parse(down!.body)).toMatchObject({ error: { code: 'unavailable', message: expect.any(String) } });
  expectOnlySuccessesAndClean503s(router.log);
  // Uploads accepted before, during (after the retries) and after the restart.
  expect(accepted.length).toBeGreaterThan(3);

  // Every process is still there and reconnected: the web processes answer ready, the workers beat.
  for (const pid of pids) expect(alive(pid)).toBe(true);
  for (const w of deployed.webs) await until(`web ${w.port} ready again`, async () => (await fetch(`${w.url}/readyz`)).ok, 30_000);
  await until('both workers beating again', async () => (await query<{ n: number }>("select count(*)::int as n from worker_heartbeats where beat_at > now() - interval '3 seconds'"))[0]!.n === 2, 30_000);
  await expectExactlyOnce(accepted);
  for (const w of deployed.webs) {
    const res = await fetch(`${w.url}/api/rag/search`, { method: 'POST', headers: { 'x-api-key': deployed.key, 'content-type': 'application/json' }, body: JSON.stringify({ kb_id: deployed.kbId, query: 'hydraulic pump' }) });
    expect(res.status).toBe(200);
  }
}, 240_000);
