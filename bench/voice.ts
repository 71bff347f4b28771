/**
 * Voice gateway: the latency it adds per audio frame, measured at the sockets, in both directions,
 * with N concurrent sessions on ONE web process.
 *
 *   npm run bench -- voice [--db postgres|embedded] [--sessions 200] [--seconds 30]
 *                          [--downlink burst,paced] [--ingest] [--client-procs 2] [--ramp-ms 5000] [--pause-ms 4000]
 *                          [--questions 0]   (quiet frames only: the uplink relay's own cost, no answers)
 *
 * Processes (so that what measures is not what is measured):
 *   - the web process: the app and the voice gateway on the chosen database (`embedded` is the
 *     default `npm start` runs: PGlite in its own thread; with --ingest the worker runs inline in
 *     a thread of this process, as it does by default, and ingests the biggest PDF of ../shared/data/docs
 *     (the 619-page one) during each step);
 *   - the upstream process: the strict fake Realtime server (test/fakes/realtime-server.ts);
 *   - K client processes: the browsers;
 *   - this driver: orchestration, and the fake OpenAI server the web process embeds queries with.
 *
 * Every session sends a 20 ms pcm16 frame every 20 ms for the whole step (a microphone streams
 * continuously): 1 s of tone (a question), then quiet; the fake's VAD ends the turn, the model calls
 * search_knowledge_base (real retrieval in the web process) and speaks a 3 s answer; `--pause-ms`
 * after the answer the visitor asks again. First questions are spread over `--ramp-ms`. A step lasts `--seconds` (and, with --ingest, until the
 * PDF is ready).
 *
 * Per frame, both ends are stamped at the socket on one system-wide clock (CLOCK_MONOTONIC via
 * process.hrtime, the same in every process, so times compare across processes exactly):
 *   - browser -> gateway -> upstream: each browser frame carries a sequence number in its first 4
 *     samples (one byte each: inaudible, below the fake's speech threshold); sent = just before the
 *     client's `ws.send`, received = the raw 'data' event of the fake upstream's socket that
 *     completed the `input_audio_buffer.append` carrying it (before `ws` parsed it);
 *   - upstream -> gateway -> browser: each `response.output_audio.delta` (100 ms of audio) carries
 *     one in its first 4 bytes; sent = just before the fake's `ws.send`, received = the client
 *     socket's raw 'data' event. `burst`: deltas at 10x real time (the real API sends faster than
 *     real time); `paced`: in real time.
 * So each figure is the gateway's added latency plus two loopback hops plus the wait for the
 * receiving process's event loop; the measuring processes' own loop delay is printed next to it
 * (the floor of the measurement). Not included: TLS to OpenAI and the network both ways.
 * Results also go to bench/results/voice.json.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { createHistogram, monitorEventLoopDelay, type IntervalHistogram, type RecordableHistogram } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import WebSocket from 'ws';
import { silencePcm16, tonePcm16 } from '../test/fakes/realtime-server';

const ORIGIN = 'https://bench.example.com';
const SESSIONS_PER_ORG = 40;
const FRAME_MS = 20;
const FRAME_BYTES = (24_000 * 2 * FRAME_MS) / 1000;
const ANSWER_MS = 3000;
/** Upstream deltas: 100 ms of pcm16. */
const DELTA_BYTES = (24_000 * 2 * 100) / 1000;
/** After a step's browsers stop, how long frames in flight have to arrive before they count as lost. */
const DRAIN_MS = 1000;
const DOCS = fileURLToPath(new URL('../../shared/data/docs/', import.meta.url));

/** CLOCK_MONOTONIC in ms: one clock for every process on the machine. */
const clock = () => Number(process.hrtime.bigint()) / 1e6;

type LoopStats = { p50: number; p95: number; p99: number; max: number };
const loopStats = (h: IntervalHistogram): LoopStats => ({ p50: h.percentile(50) / 1e6, p95: h.percentile(95) / 1e6, p99: h.percentile(99) / 1e6, max: h.max / 1e6 });
const newLoopMonitor = () => {
  const h = monitorEventLoopDelay({ resolution: 2 });
  h.enable();
  return h;
};

/** The stamp of a browser frame: 4 samples whose low byte each carry 8 bits of it. */
function writeFrameStamp(frame: Buffer, stamp: number) {
  for (let k = 0; k < 4; k++) frame.writeInt16LE((stamp >>> (8 * k)) & 0xff, k * 2);
}
function readFrameStamp(frame: Buffer): number {
  let stamp = 0;
  for (let k = 0; k < 4; k++) stamp |= (frame.readInt16LE(k * 2) & 0xff) << (8 * k);
  return stamp >>> 0;
}

/** The biggest PDF of the shared documents (the 619-page one). */
function biggestPdf(): string {
  const pdfs = readdirSync(DOCS).filter((f) => f.toLowerCase().endsWith('.pdf'));
  return pdfs.sort((a, b) => statSync(path.join(DOCS, b)).size - statSync(path.join(DOCS, a)).size)[0]!;
}

// ---- the web process ---------------------------------------------------------------------

/** The gateway's own time per frame (ms): a histogram in the web process, not an array of millions sent over IPC. */
type Timings = { n: number; p99: number };
type WebStats = { cpuMicros: number; systemMicros: number; sessions: number; loop: LoopStats; relay: Timings; forwarded: Timings; appends: number; rss: number; dropped: { in: number; out: number } };
type IngestResult = { file: string; status: string; chunks: number; seconds: number };

async function serveWebProcess(o: { db: 'postgres' | 'embedded'; max: number; fakeUrl: string; fakeKey: string; openaiUrl: string; openaiKey: string; ingest: boolean }) {
  const { openBenchRuntime } = await import('./lib/bench-runtime');
  const { createApp } = await import('../src/app');
  const { attachVoiceGateway } = await import('../realtime/voice-gateway');
  const { createOrg } = await import('../src/services/orgs/create-org');
  const { createKb } = await import('../src/services/kbs/create-kb');
  const { updateOrgSettings } = await import('../src/services/orgs/org-settings');
  const { startWidgetSession } = await import('../src/services/widget/start-widget-session');
  const { createContext } = await import('../src/context');
  const { searchKnowledgeForVoice } = await import('../src/services/voice/voice-knowledge-tool');
  const { startWorkerThread } = await import('../src/jobs/worker-thread');

  // Voice needs an OpenAI key, so a voice deployment embeds queries over HTTP too (the fake here).
  const rt = await openBenchRuntime(o.db, {
    OPENAI_API_KEY: o.openaiKey,
    OPENAI_BASE_URL: o.openaiUrl,
    OPENAI_REALTIME_API_KEY: o.fakeKey,
    OPENAI_REALTIME_URL: o.fakeUrl,
    VOICE_IDLE_TIMEOUT_SECONDS: '120',
    VOICE_MAX_SESSION_SECONDS: '3600',
  });
  const tokens: string[] = [];
  const contexts: ReturnType<typeof createContext>[] = [];
  for (let i = 0; i < Math.ceil(o.max / SESSIONS_PER_ORG); i++) {
    const created = await createOrg(rt.deps, { name: `Voice bench ${i}`, slug: `voice-bench-${i}`, plan: 'pro' });
    const org = await rt.deps.db.selectFrom('organizations').selectAll().where('id', '=', created.org.id).executeTakeFirstOrThrow();
    const ctx = createContext(rt.deps, org, { requestId: 'bench' });
    contexts.push(ctx);
    const { kb } = await createKb(ctx, { name: 'Bench KB' });
    await updateOrgSettings(ctx, { voice_enabled: true });
    tokens.push((await startWidgetSession(rt.deps, { org: created.org.slug, kb: kb.id }, ORIGIN)).token);
    if (i === 0) {
      const row = await rt.deps.db.selectFrom('knowledge_bases').selectAll().where('id', '=', kb.id as never).executeTakeFirstOrThrow();
      await searchKnowledgeForVoice(ctx, row, JSON.stringify({ query: 'warm up' }));
    }
  }
  // The inline worker, as `npm start` runs it on the embedded default: in a thread of the web process.
  const worker = o.ingest ? await startWorkerThread({ config: rt.deps.config, logger: rt.deps.logger, database: rt.database, deps: rt.deps }, { pollInterval: 500 }) : null;
  const app = createApp(rt.deps);
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s as Server)) as Server;
  });
  // Microseconds, at least 1 (a histogram records positive integers).
  const histogram = () => createHistogram();
  const record = (h: RecordableHistogram, ms: number) => h.record(Math.max(1, Math.round(ms * 1000)));
  const timings = (h: RecordableHistogram): Timings => ({ n: h.count, p99: h.count ? h.percentile(99) / 1000 : NaN });
  let relay = histogram();
  let forwarded = histogram();
  let appends = 0;
  let loop = newLoopMonitor();
  const gateway = attachVoiceGateway(server, rt.deps, { observer: { relayed: (ms) => record(relay, ms), forwarded: (ms) => record(forwarded, ms), appended: () => void appends++ } });
  const port = (server.address() as { port: number }).port;
  process.on('message', (m: { type: string }) => {
    if (m.type === 'stats') {
      const cpu = process.cpuUsage();
      // Audio the gateway dropped under backpressure (bytes), over the sessions open now.
      const dropped = { in: 0, out: 0 };
      for (const s of gateway.inspect()) (dropped.in += s.stats.droppedIn), (dropped.out += s.stats.droppedOut);
      const stats: WebStats = { cpuMicros: cpu.user + cpu.system, systemMicros: cpu.system, sessions: gateway.sessions(), loop: loopStats(loop), relay: timings(relay), forwarded: timings(forwarded), appends, rss: process.memoryUsage().rss, dropped };
      process.send!({ type: 'stats', stats });
      relay = histogram();
      forwarded = histogram();
      appends = 0;
      loop.disable();
      loop = newLoopMonitor();
    }
    if (m.type === 'ingest') void uploadAndWait(contexts[0]!).then((result) => process.send!({ type: 'ingest', result }));
    if (m.type === 'stop') void gateway.close().then(() => worker?.stop()).then(() => rt.close()).then(() => process.exit(0));
  });
  process.send!({ type: 'ready', wsUrl: `ws://127.0.0.1:${port}/api/widget/voice`, tokens });
}

/** Stores the big PDF as an upload does (the inline worker ingests it); resolves once it is ready or failed. */
async function uploadAndWait(ctx: import('../src/context').ServiceContext): Promise<IngestResult> {
  const { createKb } = await import('../src/services/kbs/create-kb');
  const { acceptFile } = await import('../src/services/documents/ingest-upload');
  const file = biggestPdf();
  const started = performance.now();
  const { kb } = await createKb(ctx, { name: `Ingest ${Date.now()}` });
  const row = await ctx.db.selectFrom('knowledge_bases').selectAll().where('id', '=', kb.id as never).executeTakeFirstOrThrow();
  const { document: doc } = await acceptFile(ctx, row, file, readFileSync(path.join(DOCS, file)));
  for (;;) {
    const d = await ctx.db.selectFrom('documents').select(['status', 'chunk_count']).where('id', '=', doc.id as never).executeTakeFirstOrThrow();
    if (d.status !== 'processing') return { file, status: d.status, chunks: d.chunk_count, seconds: (performance.now() - started) / 1000 };
    await new Promise((r) => setTimeout(r, 250));
  }
}

// ---- the upstream process ----------------------------------------------------------------

type UpstreamReport = { received: [number, number][]; sent: [number, number][]; loop: LoopStats; cpuMicros: number };

async function serveUpstreamProcess() {
  const { startFakeRealtime } = await import('../test/fakes/realtime-server');
  let received: [number, number][] = [];
  const fake = await startFakeRealtime({
    clock,
    record: false,
    // The gateway appends the frames one socket read delivered as one append: a stamp per frame.
    onInputAudio: (pcm, arrivedAt) => {
      for (let off = 0; off + 8 <= pcm.length; off += FRAME_BYTES) received.push([readFrameStamp(pcm.subarray(off)), arrivedAt]);
    },
  });
  let loop = newLoopMonitor();
  let cpuFrom = process.cpuUsage();
  process.on('message', (m: { type: string; audioSpeed?: number }) => {
    if (m.type === 'script') {
      fake.setScript({ pace: 1, replyMs: ANSWER_MS, chunkMs: 100, stampDeltas: true, silenceMs: 300, audioSpeed: m.audioSpeed });
      loop.disable();
      loop = newLoopMonitor();
      cpuFrom = process.cpuUsage();
      received = [];
      fake.deltaSentAt.clear();
      return void process.send!({ type: 'script' });
    }
    if (m.type === 'collect') {
      const cpu = process.cpuUsage(cpuFrom);
      const report: UpstreamReport = { received, sent: [...fake.deltaSentAt], loop: loopStats(loop), cpuMicros: cpu.user + cpu.system };
      received = [];
      fake.deltaSentAt.clear();
      return void process.send!({ type: 'collect', report });
    }
    if (m.type === 'stop') void fake.close().then(() => process.exit(0));
  });
  process.send!({ type: 'ready', url: fake.url, apiKey: fake.apiKey });
}

// ---- the browser clients -----------------------------------------------------------------

type ClientsReport = {
  sent: [number, number][];
  received: [number, number][];
  failed: number;
  answered: number;
  asked: number;
  interrupts: number;
  errors: Record<string, number>;
  loop: LoopStats;
  cpuMicros: number;
};

/** A client process: sessions sharing one event loop, driven over IPC. */
function serveClientProcess() {
  const procIndex = Number(process.argv[process.argv.indexOf('--clients') + 1]);
  let wsUrl = '';
  let tokens: string[] = [];
  const speech = tonePcm16(1000, 300);
  const quiet = silencePcm16(FRAME_MS);
  // The top byte of a stamp is the client process, so stamps never collide across processes.
  let counter = 0;
  const nextStamp = () => ((procIndex << 24) | (++counter & 0xffffff)) >>> 0;
  type Client = { ws: WebSocket; timer?: NodeJS.Timeout; speakFrom: number; nextAskAt: number; askedAt: number };
  let clients: Client[] = [];
  let report: ClientsReport;
  let loop = newLoopMonitor();
  let cpuFrom = process.cpuUsage();
  const reset = () => {
    report = { sent: [], received: [], failed: 0, answered: 0, asked: 0, interrupts: 0, errors: {}, loop: loopStats(loop), cpuMicros: 0 };
    loop.disable();
    loop = newLoopMonitor();
    cpuFrom = process.cpuUsage();
  };
  reset();
  let pauseMs = 4000;
  const fail = (code: string) => {
    report.failed++;
    report.errors[code] = (report.errors[code] ?? 0) + 1;
  };
  const open = (i: number) =>
    new Promise<void>((resolve) => {
      const ws = new WebSocket(wsUrl, ['groundwork.voice.v1', `bearer.${tokens[Math.floor(i / SESSIONS_PER_ORG)]}`], { origin: ORIGIN, perMessageDeflate: false, allowSynchronousEvents: true });
      const client: Client = { ws, speakFrom: Infinity, nextAskAt: Infinity, askedAt: 0 };
      clients.push(client);
      ws.binaryType = 'nodebuffer';
      // Stamped before ws's own listener; ws then emits every message the chunk completes synchronously.
      let arrivedAt = 0;
      ws.once('open', () => (ws as unknown as { _socket: import('node:net').Socket })._socket.prependListener('data', () => void (arrivedAt = clock())));
      ws.on('message', (data, isBinary) => {
        if (isBinary) return void report.received.push([(data as Buffer).readUInt32LE(0), arrivedAt]);
        const m = JSON.parse(String(data));
        if (m.type === 'ready') resolve();
        if (m.type === 'interrupt') (report.interrupts++, ws.send(JSON.stringify({ type: 'interrupted', played_ms: 0 })));
        // The gateway treats the answer as playing for its length after its first frame: ask again after that.
        if (m.type === 'transcript' && m.role === 'assistant' && m.final) (report.answered++, (client.nextAskAt = performance.now() + ANSWER_MS + pauseMs));
        if (m.type === 'error') (fail(m.code), resolve());
      });
      ws.on('error', () => (fail('socket_error'), resolve()));
    });
  const talk = (c: Client, offset: number, firstAsk: number) => {
    const start = performance.now() + offset;
    // Visitors do not all ask at the same instant: first questions spread over --ramp-ms.
    c.nextAskAt = start + firstAsk;
    c.askedAt = c.nextAskAt;
    c.timer = setInterval(() => {
      const now = performance.now();
      if (c.ws.readyState !== c.ws.OPEN) return void clearInterval(c.timer);
      if (now < start) return;
      // Ask when due, or again if no answer came within 20 s.
      if (now >= c.nextAskAt || now - c.askedAt > 20_000 + ANSWER_MS + pauseMs) {
        c.speakFrom = now;
        c.askedAt = now;
        c.nextAskAt = Infinity;
        report.asked++;
      }
      const off = Math.floor((now - c.speakFrom) / FRAME_MS) * FRAME_BYTES;
      const frame = Buffer.from(off >= 0 && off < speech.length ? speech.subarray(off, off + FRAME_BYTES) : quiet);
      const stamp = nextStamp();
      writeFrameStamp(frame, stamp);
      report.sent.push([stamp, clock()]);
      c.ws.send(frame, { binary: true });
    }, FRAME_MS);
  };
  process.on('message', async (m: any) => {
    if (m.type === 'init') ((wsUrl = m.wsUrl), (tokens = m.tokens));
    if (m.type === 'open') await Promise.all((m.indices as number[]).map(open));
    if (m.type === 'talk') {
      pauseMs = m.pauseMs;
      reset();
      // --questions 0: a microphone streaming quiet, nothing else (the relay's own cost per frame).
      clients.forEach((c, k) => talk(c, (k * 7) % (FRAME_MS * 50), m.questions ? ((k * 131) % 1000) * (m.rampMs / 1000) : Infinity));
    }
    // The step ends: no more frames, but what is in flight is still received until 'collect'.
    if (m.type === 'quiet') clients.forEach((c) => clearInterval(c.timer));
    if (m.type === 'collect') {
      clients.forEach((c) => clearInterval(c.timer));
      report.loop = loopStats(loop);
      const cpu = process.cpuUsage(cpuFrom);
      report.cpuMicros = cpu.user + cpu.system;
      const r = report;
      reset();
      return void process.send!({ type: 'collect', report: r });
    }
    if (m.type === 'close') {
      const open = clients.filter((c) => c.ws.readyState !== c.ws.CLOSED);
      await Promise.all(open.map((c) => new Promise((closed) => (c.ws.once('close', closed), c.ws.close(1000)))));
      clients = [];
    }
    process.send!({ type: m.type });
  });
}

// ---- the driver --------------------------------------------------------------------------

function percentile(sorted: number[], p: number) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Sends `message` and resolves with the child's next message of the same type. */
function request<T = any>(child: ChildProcess, message: { type: string; [k: string]: unknown }): Promise<T> {
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

function forkSelf(args: string[]) {
  // VOICE_BENCH_PROFILE=dir: a CPU profile of the web process, to see what holds its loop.
  // VOICE_BENCH_PROFILE_WHAT=serve,upstream,clients: which processes (default the web process).
  const what = (process.env.VOICE_BENCH_PROFILE_WHAT ?? 'serve').split(',').map((w) => `--${w}`);
  const profile = what.includes(args[0]!) && process.env.VOICE_BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.VOICE_BENCH_PROFILE}/${args[0]!.slice(2)}`] : [];
  return fork(fileURLToPath(import.meta.url), args, { execArgv: ['--import', 'tsx', ...profile], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}
const readyOf = <T>(child: ChildProcess) => new Promise<T>((resolve) => child.on('message', (m: any) => m.type === 'ready' && resolve(m)));

/** Latencies of the stamps both ends saw. */
function join(sent: Iterable<[number, number]>, received: Iterable<[number, number]>): { latencies: number[]; lost: number } {
  const at = new Map(sent);
  const latencies: number[] = [];
  for (const [stamp, t] of received) {
    const s = at.get(stamp);
    if (s !== undefined) latencies.push(t - s);
  }
  latencies.sort((a, b) => a - b);
  return { latencies, lost: at.size - latencies.length };
}

// NaN crosses IPC (JSON) as null.
const ms = (v: number | null) => (v === null ? NaN : Number(v.toFixed(2)));
const pct = (xs: number[]) => ({ n: xs.length, p50: ms(percentile(xs, 50)), p95: ms(percentile(xs, 95)), p99: ms(percentile(xs, 99)), max: ms(xs[xs.length - 1] ?? NaN) });

async function drive() {
  const args = process.argv.slice(2);
  const opt = (name: string, dflt: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1]! : dflt);
  const db = opt('db', 'postgres') as 'postgres' | 'embedded';
  const steps = opt('sessions', '200').split(',').map(Number);
  const seconds = Number(opt('seconds', '30'));
  const pauseMs = Number(opt('pause-ms', '4000'));
  const rampMs = Number(opt('ramp-ms', '5000'));
  const modes = opt('downlink', 'burst,paced').split(',') as ('burst' | 'paced')[];
  const clientProcs = Math.max(1, Number(opt('client-procs', '2')));
  const questions = opt('questions', '1') !== '0';
  const ingest = args.includes('--ingest');
  if (db !== 'postgres' && db !== 'embedded') throw new Error('--db postgres|embedded');

  const { startFakeOpenAI } = await import('../test/fakes/openai-server');
  const openai = await startFakeOpenAI();
  const upstream = forkSelf(['--upstream']);
  const fake = await readyOf<{ url: string; apiKey: string }>(upstream);
  const web = forkSelf(['--serve', JSON.stringify({ db, max: Math.max(...steps), fakeUrl: fake.url, fakeKey: fake.apiKey, openaiUrl: openai.url, openaiKey: openai.apiKey, ingest })]);
  const ready = await readyOf<{ wsUrl: string; tokens: string[] }>(web);
  const clients = Array.from({ length: clientProcs }, (_, k) => forkSelf(['--clients', String(k + 1)]));
  await Promise.all(clients.map((c) => request(c, { type: 'init', wsUrl: ready.wsUrl, tokens: ready.tokens })));
  const results: Record<string, unknown>[] = [];
  process.stdout.write(`voice bench: ${db}${ingest ? `, ingesting ${biggestPdf()} inline` : ''}, ${clientProcs} client processes, ${seconds} s per step, load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);

  for (const n of steps) {
    for (const mode of modes) {
      await request(upstream, { type: 'script', audioSpeed: mode === 'burst' ? 10 : 1 });
      // Visitors arrive over time, not in one instant: connect in batches of 25 (spread over the processes).
      for (let i = 0; i < n; i += 25) await request(clients[(i / 25) % clientProcs]!, { type: 'open', indices: Array.from({ length: Math.min(25, n - i) }, (_, j) => i + j) });
      await new Promise((r) => setTimeout(r, 1000));
      const before = (await request<{ stats: WebStats }>(web, { type: 'stats' })).stats;
      const started = performance.now();
      await Promise.all(clients.map((c) => request(c, { type: 'talk', pauseMs, rampMs, questions })));
      const ingested = ingest ? request<{ result: IngestResult }>(web, { type: 'ingest' }) : null;
      await new Promise((r) => setTimeout(r, seconds * 1000));
      const ingestResult = ingested ? (await ingested).result : null;
      // The step ends: browsers stop sending; frames either way sent before `stoppedAt` are owed and
      // get DRAIN_MS to arrive (later than that counts as lost). Deltas the upstream sends after it are not counted.
      const stoppedAt = clock();
      await Promise.all(clients.map((c) => request(c, { type: 'quiet' })));
      const after = (await request<{ stats: WebStats }>(web, { type: 'stats' })).stats;
      const talkSeconds = (performance.now() - started) / 1000;
      await new Promise((r) => setTimeout(r, DRAIN_MS));
      const reports = (await Promise.all(clients.map((c) => request<{ report: ClientsReport }>(c, { type: 'collect' })))).map((r) => r.report);
      const up = (await request<{ report: UpstreamReport }>(upstream, { type: 'collect' })).report;
      await Promise.all(clients.map((c) => request(c, { type: 'close' })));
      for (let i = 0; i < 60 && (await request<{ stats: WebStats }>(web, { type: 'stats' })).stats.sessions > 0; i++) await new Promise((r) => setTimeout(r, 500));

      const uplink = join(reports.flatMap((r) => r.sent), up.received);
      const downlink = join(
        up.sent.filter(([, t]) => t <= stoppedAt),
        reports.flatMap((r) => r.received),
      );
      const errors: Record<string, number> = {};
      for (const r of reports) for (const [code, count] of Object.entries(r.errors)) errors[code] = (errors[code] ?? 0) + count;
      const sum = (k: 'failed' | 'answered' | 'asked' | 'interrupts') => reports.reduce((a, r) => a + r[k], 0);
      const up_ = pct(uplink.latencies);
      // Frames through the gateway either way: the web process's CPU per frame is robust to the machine's other load.
      const frames = after.forwarded.n + after.relay.n;
      const webCpuPer10k = ms(((after.cpuMicros - before.cpuMicros) / 1000 / frames) * 10_000);
      // The kernel's part is mostly the socket writes (on loopback they carry the receiving end's TCP work too).
      const webSystemPer10k = ms(((after.systemMicros - before.systemMicros) / 1000 / frames) * 10_000);
      const down = pct(downlink.latencies);
      const row = {
        db,
        ingest: ingestResult ? `${ingestResult.file}: ${ingestResult.status}, ${ingestResult.chunks} chunks in ${ingestResult.seconds.toFixed(1)} s` : 'no',
        sessions: n,
        downlink: mode,
        ready: n - sum('failed'),
        asked: sum('asked'),
        answered: sum('answered'),
        interrupts: sum('interrupts'),
        errors,
        'browser->upstream ms': { ...up_, lost: uplink.lost, 'dropped by gateway': Math.round(after.dropped.in / FRAME_BYTES) },
        'upstream->browser ms': {
          ...down,
          lost: downlink.lost,
          'dropped by gateway': Math.round(after.dropped.out / DELTA_BYTES),
          // Not lost: the clients report before these could arrive, so they are counted apart.
          'sent after the stop, not counted': up.sent.length - up.sent.filter(([, t]) => t <= stoppedAt).length,
        },
        // Above 1 when the web loop lagged: frames one read delivered went up as one append.
        'browser frames per upstream append': Number((after.forwarded.n / Math.max(1, after.appends)).toFixed(2)),
        'gateway own work ms (p99)': { forward: ms(after.forwarded.p99), relay: ms(after.relay.p99) },
        'web loop delay ms': mapLoop(after.loop),
        'measuring loop delay p99 ms': { upstream: ms(up.loop.p99), clients: reports.map((r) => ms(r.loop.p99)) },
        'web CPU % of a core': Math.round(((after.cpuMicros - before.cpuMicros) / 1e6 / talkSeconds) * 100),
        'web CPU ms per 10,000 frames': { total: webCpuPer10k, kernel: webSystemPer10k },
        'CPU % of a core: upstream, clients': [Math.round((up.cpuMicros / 1e6 / talkSeconds) * 100), ...reports.map((r) => Math.round((r.cpuMicros / 1e6 / talkSeconds) * 100))],
        'web RSS MB': Math.round(after.rss / 1024 / 1024),
        seconds: Math.round(talkSeconds),
      };
      results.push(row);
      process.stdout.write(`${JSON.stringify(row)}\n`);
      process.stdout.write(
        `${db}${ingest ? '+ingest' : ''} ${n} sessions, ${mode}: browser->upstream p50/p95/p99 ${up_.p50}/${up_.p95}/${up_.p99} ms (${up_.n} frames, ${uplink.lost} lost); ` +
          `upstream->browser ${down.p50}/${down.p95}/${down.p99} ms (${down.n} frames, ${downlink.lost} lost); ` +
          `web: CPU ${webCpuPer10k} ms per 10,000 frames (kernel ${webSystemPer10k}), loop delay p95/p99 ${ms(after.loop.p95)}/${ms(after.loop.p99)} ms; ` +
          `measuring processes' own loop delay p99: upstream ${ms(up.loop.p99)} ms, clients ${reports.map((r) => ms(r.loop.p99)).join('/')} ms\n`,
      );
    }
  }
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('./results/voice.json', import.meta.url), JSON.stringify({ at: new Date().toISOString(), db, ingest, seconds, clientProcs, results }, null, 2));
  for (const c of clients) await new Promise((exited) => (c.once('exit', exited), c.kill()));
  for (const c of [web, upstream]) await new Promise((exited) => (c.once('exit', exited), c.send({ type: 'stop' })));
  await openai.close();
}

const mapLoop = (l: LoopStats) => ({ p50: ms(l.p50), p95: ms(l.p95), p99: ms(l.p99), max: ms(l.max) });

if (process.argv.includes('--serve')) {
  await serveWebProcess(JSON.parse(process.argv[process.argv.indexOf('--serve') + 1]!));
} else if (process.argv.includes('--upstream')) {
  await serveUpstreamProcess();
} else if (process.argv.includes('--clients')) {
  serveClientProcess();
} else {
  await drive();
}
