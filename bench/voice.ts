/**
 * Voice gateway capacity: N concurrent voice sessions on ONE web process (a child process running
 * the app and the gateway on the embedded database), driven from this process, which also runs
 * the fake Realtime server.
 *
 *   npm run bench -- voice [--sessions 50,100,200,300] [--answer-ms 3000]
 *
 * Each session: connect, `ready`, then 40 ms microphone frames in real time (1 s of tone, then
 * quiet), the fake's VAD ends the turn, the model calls search_knowledge_base (real retrieval in
 * the web process), and a spoken answer streams back in real time as 100 ms audio deltas. Every
 * delta carries a sequence number in its first 4 bytes, so each browser frame is matched to the
 * upstream delta it came from:
 *   - gateway relay: in the web process, from the upstream delta's arrival to its frame handed to
 *     the browser socket; plus the web process's event-loop delay p95 (how long a delta can wait
 *     for the loop): their sum is the latency the gateway adds;
 *   - end to end: browser frame received - upstream delta sent, measured in this driver (both
 *     loopback hops and the driver's own event loop, which runs the fake and N clients, included);
 *   - memory per session: web process heap + external with N sessions open and idle (after a GC),
 *     minus before, over N (and the same for RSS);
 *   - CPU per session-minute: web process CPU time during the talking phase / (N x minutes).
 * The largest N with relay p95 + loop delay p95 < 10 ms is reported. Results also go to bench/results/voice.json.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import WebSocket from 'ws';

const ORIGIN = 'https://bench.example.com';
const SESSIONS_PER_ORG = 40;
const FRAME_MS = 40;
const FRAME_BYTES = (24_000 * 2 * FRAME_MS) / 1000;

type ChildStats = { rss: number; heap: number; cpuMicros: number; sessions: number; relay: number[]; loopP95: number; loopP99: number };

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
  for (let i = 0; i < Math.ceil(maxSessions / SESSIONS_PER_ORG); i++) {
    const created = await createOrg(rt.deps, { name: `Voice bench ${i}`, slug: `voice-bench-${i}`, plan: 'pro' });
    const org = await rt.deps.db.selectFrom('organizations').selectAll().where('id', '=', created.org.id).executeTakeFirstOrThrow();
    const ctx = createContext(rt.deps, org, { requestId: 'bench' });
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
  const { monitorEventLoopDelay } = await import('node:perf_hooks');
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
        loopP99: loop.percentile(99) / 1e6,
      };
      process.send!({ type: 'stats', stats });
      relay = [];
      loop.reset();
    }
    if (m.type === 'stop') void gateway.close().then(() => rt.close()).then(() => process.exit(0));
  });
  process.send!({ type: 'ready', wsUrl: `ws://127.0.0.1:${port}/api/widget/voice`, tokens });
}

// ---- the driver --------------------------------------------------------------------------

function percentile(sorted: number[], p: number) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function ask<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: any) => {
      if (m.type === type) {
        child.off('message', on);
        resolve(m.stats ?? m);
      }
    };
    child.on('message', on);
    child.send({ type });
  });
}

async function drive() {
  const args = process.argv.slice(2);
  const opt = (name: string, dflt: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1]! : dflt);
  const steps = opt('sessions', '50,100,200,300').split(',').map(Number);
  const answerMs = Number(opt('answer-ms', '3000'));
  const { startFakeRealtime, tonePcm16, silencePcm16 } = await import('../test/fakes/realtime-server');
  const { startFakeOpenAI } = await import('../test/fakes/openai-server');
  const fake = await startFakeRealtime({ script: { pace: 1, replyMs: answerMs, chunkMs: 100, stampDeltas: true, silenceMs: 300 } });
  const openai = await startFakeOpenAI();
  const child = fork(fileURLToPath(import.meta.url), ['--serve', fake.url, fake.apiKey, String(Math.max(...steps)), openai.url, openai.apiKey], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<{ wsUrl: string; tokens: string[] }>((resolve) => child.on('message', (m: any) => m.type === 'ready' && resolve(m)));
  const speech = Buffer.concat([tonePcm16(1000, 300), silencePcm16(600)]);
  const quiet = silencePcm16(FRAME_MS);
  const results: Record<string, unknown>[] = [];

  for (const n of steps) {
    const before = await ask<ChildStats>(child, 'stats');
    const latencies: number[] = [];
    let answered = 0;
    let failed = 0;
    const errors: Record<string, number> = {};
    const open = (i: number) =>
      new Promise<WebSocket>((resolve) => {
          const ws = new WebSocket(ready.wsUrl, ['groundwork.voice.v1', `bearer.${ready.tokens[Math.floor(i / SESSIONS_PER_ORG)]}`], { origin: ORIGIN, perMessageDeflate: false });
          ws.binaryType = 'nodebuffer';
          ws.on('message', (data, isBinary) => {
            if (isBinary) {
              const sentAt = fake.deltaSentAt.get((data as Buffer).readUInt32LE(0));
              if (sentAt !== undefined) latencies.push(performance.now() - sentAt);
              return;
            }
            const m = JSON.parse(String(data));
            if (m.type === 'ready') resolve(ws);
            if (m.type === 'transcript' && m.role === 'assistant' && m.final) answered++;
            if (m.type === 'error') {
              failed++;
              errors[m.code] = (errors[m.code] ?? 0) + 1;
              resolve(ws);
            }
          });
          ws.on('error', () => (failed++, resolve(ws)));
        });
    // Visitors arrive over time, not in one instant: connect in batches of 25.
    const sockets: WebSocket[] = [];
    for (let i = 0; i < n; i += 25) sockets.push(...(await Promise.all(Array.from({ length: Math.min(25, n - i) }, (_, j) => open(i + j)))));
    await new Promise((r) => setTimeout(r, 1000));
    const idle = await ask<ChildStats>(child, 'stats');
    const talkStart = performance.now();
    // Every session talks in real time, starts spread over one frame period so frames interleave,
    // and keeps sending quiet frames until every answer has been heard (or 30 s).
    const deadline = performance.now() + 30_000;
    await Promise.all(
      sockets.map(
        (ws, i) =>
          new Promise<void>((resolve) => {
            let off = 0;
            const started = performance.now() + (i % FRAME_MS);
            const timer = setInterval(() => {
              if (ws.readyState !== ws.OPEN) return void (clearInterval(timer), resolve());
              if (answered + failed >= n || performance.now() > deadline) return void (clearInterval(timer), resolve());
              if (performance.now() < started) return;
              ws.send(off < speech.length ? speech.subarray(off, off + FRAME_BYTES) : quiet, { binary: true });
              off += FRAME_BYTES;
            }, FRAME_MS);
          }),
      ),
    );
    const talkMinutes = (performance.now() - talkStart) / 60_000;
    const after = await ask<ChildStats>(child, 'stats');
    const relay = after.relay.sort((a, b) => a - b);
    for (const ws of sockets) ws.close(1000);
    // The next step starts when every session of this one has ended (slots freed, meters closed).
    for (let i = 0; i < 60 && (await ask<ChildStats>(child, 'stats')).sessions > 0; i++) await new Promise((r) => setTimeout(r, 500));
    fake.deltaSentAt.clear();
    latencies.sort((a, b) => a - b);
    const row = {
      sessions: n,
      ready: n - failed,
      answered,
      frames: latencies.length,
      errors: JSON.stringify(errors),
      'gateway relay p50 (ms)': Number(percentile(relay, 50).toFixed(3)),
      'gateway relay p95 (ms)': Number(percentile(relay, 95).toFixed(3)),
      'web event loop delay p95 (ms)': Number(after.loopP95.toFixed(1)),
      'end to end p50 (ms)': Number(percentile(latencies, 50).toFixed(1)),
      'end to end p95 (ms)': Number(percentile(latencies, 95).toFixed(1)),
      'memory per session (KB)': Math.round((idle.heap - before.heap) / 1024 / n),
      'RSS per session (KB)': Math.round((idle.rss - before.rss) / 1024 / n),
      'web process RSS (MB)': Math.round(after.rss / 1024 / 1024),
      'CPU s per session-minute': Number(((after.cpuMicros - idle.cpuMicros) / 1e6 / (n * talkMinutes)).toFixed(3)),
      'web process CPU (% of one core)': Math.round(((after.cpuMicros - idle.cpuMicros) / 1e6 / (talkMinutes * 60)) * 100),
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
  writeFileSync(new URL('./results/voice.json', import.meta.url), JSON.stringify({ at: new Date().toISOString(), answerMs, results, best }, null, 2));
  child.send({ type: 'stop' });
  await new Promise((r) => child.once('exit', r));
  await fake.close();
  await openai.close();
}

if (process.argv.includes('--serve')) {
  const [fakeUrl, fakeKey, max, openaiUrl, openaiKey] = process.argv.slice(process.argv.indexOf('--serve') + 1);
  await serveWebProcess(fakeUrl!, fakeKey!, Number(max), openaiUrl!, openaiKey!);
} else {
  await drive();
}
