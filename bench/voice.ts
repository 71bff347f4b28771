/**
 * Voice gateway capacity: N concurrent voice sessions on ONE web process (a child process running
 * the app and the gateway on the embedded database), driven from this process, which also runs
 * the fake Realtime server.
 *
 *   npm run bench -- voice [--sessions 50,100,200,300] [--answer-ms 3000] [--client-procs 0] [--ingest]
 *
 * --client-procs K runs the N browser clients in K child processes instead of in this driver, so
 * the driver's own event loop (the fake, decoding every audio append) does not delay what the
 * clients receive. --ingest starts a worker process (graphile-worker, attached to the web process's
 * embedded database over the wire protocol, as `npm run worker` is) and, at the start of every
 * step's talking phase, uploads the 619-page PDF; the step then also waits for it to be ready
 * (give a long --answer-ms, e.g. 30000, so answers stream while it is ingested).
 *
 * Each session: connect, `ready`, then 40 ms microphone frames in real time (1 s of tone, then
 * quiet), the fake's VAD ends the turn, the model calls search_knowledge_base (real retrieval in
 * the web process), and a spoken answer streams back in real time as 100 ms audio deltas. Every
 * delta carries a sequence number in its first 4 bytes, so each browser frame is matched to the
 * upstream delta it came from:
 *   - gateway relay: in the web process, from the upstream delta's arrival to its frame handed to
 *     the browser socket; plus the web process's event-loop delay p95 (how long a delta can wait
 *     for the loop): their sum is the latency the gateway adds; and the loop delay's max, since
 *     one long stall (a big database statement) is a single sample of the p95;
 *   - end to end: browser frame received - upstream delta sent (both loopback hops included, and
 *     the driver's event loop, which runs the fake and, without --client-procs, the N clients;
 *     its delay p95 is printed too). Times cross processes as timeOrigin + now (epoch ms);
 *   - memory per session: web process heap + external with N sessions open and idle (after a GC),
 *     minus before, over N (and the same for RSS);
 *   - CPU per session-minute: web process CPU time during the talking phase / (N x minutes).
 * The largest N with relay p95 + loop delay p95 < 10 ms is reported. Results also go to bench/results/voice.json.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import WebSocket from 'ws';
import { silencePcm16, tonePcm16 } from '../test/fakes/realtime-server';

const ORIGIN = 'https://bench.example.com';
const SESSIONS_PER_ORG = 40;
const FRAME_MS = 40;
const FRAME_BYTES = (24_000 * 2 * FRAME_MS) / 1000;

type ChildStats = { rss: number; heap: number; cpuMicros: number; sessions: number; relay: number[]; loopP95: number; loopMax: number };
type IngestResult = { status: string; chunks: number; seconds: number };
const DOCS = fileURLToPath(new URL('../../shared/data/docs/', import.meta.url));
const INGEST_FILE = 'DA-619p.pdf';

// ---- the web process ---------------------------------------------------------------------

async function serveWebProcess(fakeUrl: string, fakeKey: string, maxSessions: number, openaiUrl: string, openaiKey: string) {
  const { openBenchRuntime } = await import('./lib/bench-runtime');
  const { createApp } = await import('../src/app');
  const { attachVoiceGateway } = await import('../realtime/voice-gateway');
  const { createOrg } = await import('../src/services/orgs/create-org');
  const { createKb } = await import('../src/services/kbs/create-kb');
  const { updateOrgSettings } = await import('../src/services/orgs/org-settings');
  const { startWidgetSession } = await import('../src/services/widget/start-widget-session');
  const { createContext } = await import('../src/context');
  const { searchKnowledgeForVoice } = await import('../src/services/voice/voice-knowledge-tool');

  // Voice needs an OpenAI key, so a voice deployment embeds queries over HTTP too (the fake here).
  const rt = await openBenchRuntime('embedded', {
    OPENAI_API_KEY: openaiKey,
    OPENAI_BASE_URL: openaiUrl,
    OPENAI_REALTIME_API_KEY: fakeKey,
    OPENAI_REALTIME_URL: fakeUrl,
    VOICE_IDLE_TIMEOUT_SECONDS: '120',
  });
  const tokens: string[] = [];
  const contexts: ReturnType<typeof createContext>[] = [];
  for (let i = 0; i < Math.ceil(maxSessions / SESSIONS_PER_ORG); i++) {
    const created = await createOrg(rt.deps, { name: `Voice bench ${i}`, slug: `voice-bench-${i}`, plan: 'pro' });
    const org = await rt.deps.db.selectFrom('organizations').selectAll().where('id', '=', created.org.id).executeTakeFirstOrThrow();
    const ctx = createContext(rt.deps, org, { requestId: 'bench' });
    contexts.push(ctx);
    const { kb } = await createKb(ctx, { name: 'Bench KB' });
    await updateOrgSettings(ctx, { voice_enabled: true });
    tokens.push((await startWidgetSession(rt.deps, { org: created.org.slug, kb: kb.id }, ORIGIN)).token);
    // Load the query embedding model before measuring, as a warmed-up server would have.
    if (i === 0) {
      const row = await rt.deps.db.selectFrom('knowledge_bases').selectAll().where('id', '=', kb.id as never).executeTakeFirstOrThrow();
      await searchKnowledgeForVoice(ctx, row, JSON.stringify({ query: 'warm up' }));
    }
  }
  const app = createApp(rt.deps);
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s as Server)) as Server;
  });
  let relay: number[] = [];
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const gateway = attachVoiceGateway(server, rt.deps, { observer: { relayed: (ms) => relay.push(ms) } });
  const port = (server.address() as { port: number }).port;
  process.on('message', (m: { type: string }) => {
    if (m.type === 'stats') {
      (globalThis as { gc?: () => void }).gc?.();
      const cpu = process.cpuUsage();
      const mem = process.memoryUsage();
      const stats: ChildStats = {
        rss: mem.rss,
        heap: mem.heapUsed + mem.external,
        cpuMicros: cpu.user + cpu.system,
        sessions: gateway.sessions(),
        relay,
        loopP95: loop.percentile(95) / 1e6,
        loopMax: loop.max / 1e6,
      };
      process.send!({ type: 'stats', stats });
      relay = [];
      loop.reset();
    }
    if (m.type === 'ingest') void uploadAndWait(contexts[0]!).then((result) => process.send!({ type: 'ingest', ...result }));
    if (m.type === 'stop') void gateway.close().then(() => rt.close()).then(() => process.exit(0));
  });
  process.send!({ type: 'ready', wsUrl: `ws://127.0.0.1:${port}/api/widget/voice`, tokens, databaseUrl: rt.database.connectionString });
}

/** Stores the big PDF as an upload does (the worker process ingests it); resolves once it is ready or failed. */
async function uploadAndWait(ctx: import('../src/context').ServiceContext): Promise<IngestResult> {
  const { createKb } = await import('../src/services/kbs/create-kb');
  const { acceptFile } = await import('../src/services/documents/ingest-upload');
  const started = performance.now();
  const { kb } = await createKb(ctx, { name: `Ingest ${Date.now()}` });
  const row = await ctx.db.selectFrom('knowledge_bases').selectAll().where('id', '=', kb.id as never).executeTakeFirstOrThrow();
  const doc = await acceptFile(ctx, row, INGEST_FILE, readFileSync(path.join(DOCS, INGEST_FILE)));
  for (;;) {
    const d = await ctx.db.selectFrom('documents').select(['status', 'chunk_count']).where('id', '=', doc.id as never).executeTakeFirstOrThrow();
    if (d.status !== 'processing') return { status: d.status, chunks: d.chunk_count, seconds: (performance.now() - started) / 1000 };
    await new Promise((r) => setTimeout(r, 250));
  }
}

// ---- the worker process (--ingest) -------------------------------------------------------

/** graphile-worker in its own process on the web process's wire port, as `npm run worker` attaches. */
async function serveWorkerProcess(databaseUrl: string, openaiUrl: string, openaiKey: string) {
  const { createDb, createPool } = await import('../db/connect');
  const { loadConfig } = await import('../src/config');
  const { createLogger } = await import('../src/logger');
  const { createAiDeps } = await import('../src/runtime');
  const { startWorker } = await import('../src/jobs/worker-runtime');
  const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'warn', DATA_DIR: '/nonexistent', OPENAI_API_KEY: openaiKey, OPENAI_BASE_URL: openaiUrl });
  const logger = createLogger(config.logLevel, { stderr: true });
  const pool = createPool(databaseUrl, 10, { embedded: true });
  const db = createDb(pool);
  const database = { db, pool, connectionString: databaseUrl, mode: 'embedded-attached' as const, close: () => db.destroy() };
  const runner = await startWorker({ config, logger, database, deps: { db, config, logger, ...createAiDeps(config) } }, { pollInterval: 500 });
  process.on('message', (m: { type: string }) => {
    if (m.type === 'stop') void runner.stop().then(() => database.close()).then(() => process.exit(0));
  });
  process.send!({ type: 'ready' });
}

// ---- the browser clients ----------------------------------------------------------------

/** `received`: [delta stamp, arrival as epoch ms (timeOrigin + now), comparable across processes]. */
type ClientsReport = { failed: number; answered: number; errors: Record<string, number>; received: [number, number][] };
type Clients = { open(indices: number[]): Promise<void>; talk(): Promise<ClientsReport>; stop(): void; close(): Promise<void> };

const epochNow = () => performance.timeOrigin + performance.now();

/**
 * Voice sessions sharing one event loop. `settled` is called once per answer or failure, so the
 * driver can stop every group when all N sessions have been heard.
 */
function clientsHere(wsUrl: string, tokens: string[], settled: () => void): Clients {
  const report: ClientsReport = { failed: 0, answered: 0, errors: {}, received: [] };
  const sockets: [number, WebSocket][] = [];
  const speech = Buffer.concat([tonePcm16(1000, 300), silencePcm16(600)]);
  const quiet = silencePcm16(FRAME_MS);
  let stopped = false;
  const fail = (code: string) => {
    report.failed++;
    report.errors[code] = (report.errors[code] ?? 0) + 1;
    settled();
  };
  const open = (i: number) =>
    new Promise<void>((resolve) => {
      const ws = new WebSocket(wsUrl, ['groundwork.voice.v1', `bearer.${tokens[Math.floor(i / SESSIONS_PER_ORG)]}`], { origin: ORIGIN, perMessageDeflate: false });
      sockets.push([i, ws]);
      ws.binaryType = 'nodebuffer';
      ws.on('message', (data, isBinary) => {
        if (isBinary) return void report.received.push([(data as Buffer).readUInt32LE(0), epochNow()]);
        const m = JSON.parse(String(data));
        if (m.type === 'ready') resolve();
        if (m.type === 'transcript' && m.role === 'assistant' && m.final) (report.answered++, settled());
        if (m.type === 'error') (fail(m.code), resolve());
      });
      ws.on('error', () => (fail('socket_error'), resolve()));
    });
  return {
    open: async (indices) => void (await Promise.all(indices.map(open))),
    // Every session talks in real time, starts spread over one frame period so frames interleave,
    // and keeps sending quiet frames until told to stop (or 60 s).
    talk: () => {
      const deadline = performance.now() + 60_000;
      return Promise.all(
        sockets.map(
          ([i, ws]) =>
            new Promise<void>((resolve) => {
              let off = 0;
              const started = performance.now() + (i % FRAME_MS);
              const timer = setInterval(() => {
                if (ws.readyState !== ws.OPEN || stopped || performance.now() > deadline) return void (clearInterval(timer), resolve());
                if (performance.now() < started) return;
                ws.send(off < speech.length ? speech.subarray(off, off + FRAME_BYTES) : quiet, { binary: true });
                off += FRAME_BYTES;
              }, FRAME_MS);
            }),
        ),
      ).then(() => report);
    },
    stop: () => void (stopped = true),
    close: async () => {
      const open = sockets.filter(([, ws]) => ws.readyState !== ws.CLOSED);
      await Promise.all(open.map(([, ws]) => new Promise((closed) => (ws.once('close', closed), ws.close(1000)))));
    },
  };
}

/** A --client-procs child: clientsHere() driven over IPC. */
function serveClientProcess() {
  let clients: Clients | undefined;
  process.on('message', async (m: any) => {
    if (m.type === 'init') clients = clientsHere(m.wsUrl, m.tokens, () => process.send!({ type: 'settled' }));
    if (m.type === 'open') await clients!.open(m.indices);
    if (m.type === 'talk') return void process.send!({ type: 'talk', report: await clients!.talk() });
    if (m.type === 'stop') clients!.stop();
    if (m.type === 'close') return void (await clients!.close(), process.exit(0));
    process.send!({ type: m.type });
  });
}

/** The same clients in a child process, so their event loop is not the driver's. */
function clientsInChild(wsUrl: string, tokens: string[], settled: () => void): Clients {
  const child = fork(fileURLToPath(import.meta.url), ['--clients'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  child.on('message', (m: { type: string }) => m.type === 'settled' && settled());
  child.send({ type: 'init', wsUrl, tokens });
  return {
    open: async (indices) => void (await request(child, { type: 'open', indices })),
    talk: async () => (await request<{ report: ClientsReport }>(child, { type: 'talk' })).report,
    stop: () => child.send({ type: 'stop' }),
    close: () => new Promise((exited) => (child.once('exit', () => exited()), child.send({ type: 'close' }))),
  };
}

// ---- the driver --------------------------------------------------------------------------

function percentile(sorted: number[], p: number) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Sends `message` and resolves with the child's next message of the same type. */
function request<T>(child: ChildProcess, message: { type: string; [k: string]: unknown }): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: any) => {
      if (m.type === message.type) {
        child.off('message', on);
        resolve(m);
      }
    };
    child.on('message', on);
    child.send(message);
  });
}

const ask = async <T>(child: ChildProcess, type: string): Promise<T> => (await request<{ stats: T }>(child, { type })).stats;

function forkSelf(args: string[], execArgv = ['--import', 'tsx']) {
  return fork(fileURLToPath(import.meta.url), args, { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

async function drive() {
  const args = process.argv.slice(2);
  const opt = (name: string, dflt: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1]! : dflt);
  const steps = opt('sessions', '50,100,200,300').split(',').map(Number);
  const answerMs = Number(opt('answer-ms', '3000'));
  const clientProcs = Number(opt('client-procs', '0'));
  const ingest = args.includes('--ingest');
  const { startFakeRealtime } = await import('../test/fakes/realtime-server');
  const { startFakeOpenAI } = await import('../test/fakes/openai-server');
  const fake = await startFakeRealtime({ script: { pace: 1, replyMs: answerMs, chunkMs: 100, stampDeltas: true, silenceMs: 300 } });
  const openai = await startFakeOpenAI();
  const child = forkSelf(['--serve', fake.url, fake.apiKey, String(Math.max(...steps)), openai.url, openai.apiKey], ['--import', 'tsx', '--expose-gc']);
  const ready = await new Promise<{ wsUrl: string; tokens: string[]; databaseUrl: string }>((resolve) => child.on('message', (m: any) => m.type === 'ready' && resolve(m)));
  const worker = ingest ? forkSelf(['--worker', ready.databaseUrl, openai.url, openai.apiKey]) : null;
  if (worker) await new Promise((resolve) => worker.on('message', (m: any) => m.type === 'ready' && resolve(m)));
  const results: Record<string, unknown>[] = [];

  for (const n of steps) {
    const before = await ask<ChildStats>(child, 'stats');
    // Talking ends once every session has been answered (or failed), and with --ingest once the
    // document is ready too.
    let unsettled = n + (ingest ? 1 : 0);
    const groups: Clients[] = [];
    const onSettled = () => {
      if (--unsettled <= 0) groups.forEach((g) => g.stop());
    };
    for (let k = 0; k < Math.max(1, clientProcs); k++) groups.push((clientProcs ? clientsInChild : clientsHere)(ready.wsUrl, ready.tokens, onSettled));
    // Visitors arrive over time, not in one instant: connect in batches of 25 (spread over the groups).
    for (let i = 0; i < n; i += 25) await groups[(i / 25) % groups.length]!.open(Array.from({ length: Math.min(25, n - i) }, (_, j) => i + j));
    await new Promise((r) => setTimeout(r, 1000));
    const idle = await ask<ChildStats>(child, 'stats');
    const talkStart = performance.now();
    const driverLoop = monitorEventLoopDelay({ resolution: 5 });
    driverLoop.enable();
    const ingested = ingest ? request<IngestResult>(child, { type: 'ingest' }).then((r) => (onSettled(), r)) : null;
    const reports = await Promise.all(groups.map((g) => g.talk()));
    const ingestResult = await ingested;
    const talkMinutes = (performance.now() - talkStart) / 60_000;
    driverLoop.disable();
    const after = await ask<ChildStats>(child, 'stats');
    const relay = after.relay.sort((a, b) => a - b);
    await Promise.all(groups.map((g) => g.close()));
    // The next step starts when every session of this one has ended (slots freed, meters closed).
    for (let i = 0; i < 60 && (await ask<ChildStats>(child, 'stats')).sessions > 0; i++) await new Promise((r) => setTimeout(r, 500));
    const latencies: number[] = [];
    for (const [stamp, at] of reports.flatMap((r) => r.received)) {
      const sentAt = fake.deltaSentAt.get(stamp);
      if (sentAt !== undefined) latencies.push(at - (performance.timeOrigin + sentAt));
    }
    fake.deltaSentAt.clear();
    latencies.sort((a, b) => a - b);
    const failed = reports.reduce((a, r) => a + r.failed, 0);
    const errors: Record<string, number> = {};
    for (const r of reports) for (const [code, count] of Object.entries(r.errors)) errors[code] = (errors[code] ?? 0) + count;
    const row = {
      sessions: n,
      ready: n - failed,
      answered: reports.reduce((a, r) => a + r.answered, 0),
      frames: latencies.length,
      errors: JSON.stringify(errors),
      'gateway relay p50 (ms)': Number(percentile(relay, 50).toFixed(3)),
      'gateway relay p95 (ms)': Number(percentile(relay, 95).toFixed(3)),
      'web event loop delay p95 (ms)': Number(after.loopP95.toFixed(1)),
      // One long stall is one sample of the p95 above, but delays every frame queued behind it.
      'web event loop delay max (ms)': Number(after.loopMax.toFixed(1)),
      'driver event loop delay p95 (ms)': Number((driverLoop.percentile(95) / 1e6).toFixed(1)),
      'end to end p50 (ms)': Number(percentile(latencies, 50).toFixed(1)),
      'end to end p95 (ms)': Number(percentile(latencies, 95).toFixed(1)),
      'memory per session (KB)': Math.round((idle.heap - before.heap) / 1024 / n),
      'RSS per session (KB)': Math.round((idle.rss - before.rss) / 1024 / n),
      'web process RSS (MB)': Math.round(after.rss / 1024 / 1024),
      'CPU s per session-minute': Number(((after.cpuMicros - idle.cpuMicros) / 1e6 / (n * talkMinutes)).toFixed(3)),
      'web process CPU (% of one core)': Math.round(((after.cpuMicros - idle.cpuMicros) / 1e6 / (talkMinutes * 60)) * 100),
      ...(ingestResult ? { ingest: `${ingestResult.status}, ${ingestResult.chunks} chunks in ${ingestResult.seconds.toFixed(1)} s` } : {}),
    };
    results.push(row);
    process.stdout.write(`${JSON.stringify(row)}\n`);
    if (row.ready < n) break;
  }
  // Added latency = what the web process adds: relay time plus the wait for its event loop.
  const ok = results.filter((r) => (r['gateway relay p95 (ms)'] as number) + (r['web event loop delay p95 (ms)'] as number) < 10 && r.ready === r.sessions);
  const best = ok.length ? Math.max(...ok.map((r) => r.sessions as number)) : 0;
  console.table(results);
  process.stdout.write(`most sessions measured with p95 added latency < 10 ms: ${best}\n`);
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('./results/voice.json', import.meta.url), JSON.stringify({ at: new Date().toISOString(), answerMs, clientProcs, ingest, results, best }, null, 2));
  // The worker first: its connections go through the web process's wire server.
  for (const c of [worker, child]) if (c) await new Promise((exited) => (c.once('exit', exited), c.send({ type: 'stop' })));
  await fake.close();
  await openai.close();
}

const argAfter = (flag: string) => process.argv.slice(process.argv.indexOf(flag) + 1);
if (process.argv.includes('--serve')) {
  const [fakeUrl, fakeKey, max, openaiUrl, openaiKey] = argAfter('--serve');
  await serveWebProcess(fakeUrl!, fakeKey!, Number(max), openaiUrl!, openaiKey!);
} else if (process.argv.includes('--worker')) {
  const [databaseUrl, openaiUrl, openaiKey] = argAfter('--worker');
  await serveWorkerProcess(databaseUrl!, openaiUrl!, openaiKey!);
} else if (process.argv.includes('--clients')) {
  serveClientProcess();
} else {
  await drive();
}
