/**
 * The embedded default under ingestion: `npm start` (PGlite, worker inside the web process) ingests
 * the 619-page PDF while clients keep calling the API. Prints:
 *
 *   - upload -> ready of DA-619p.pdf, next to `pdftotext` on the same file run in this same bench
 *     (poppler-utils), as a ratio: on a shared machine the ratio cancels some of the load
 *   - the web process's event-loop delay (perf_hooks monitorEventLoopDelay, read from /metrics'
 *     nodejs_eventloop_lag_* and reset by each scrape) while idle and while the PDF ingests: max
 *     and the largest p99 of the scrape windows
 *   - GET /api/kbs and POST /api/rag/search latency (p50 / p95 / max) while idle and while it ingests
 *
 *   npm run bench -- embedded-load [--runs 1] [--clients 2]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { rssMb } from '../test/helpers/server-process';
import { DOCS, fileForm, getDoc, newKb, startBenchServer, type BenchServer, type Doc } from './lib/ingest-server';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '1' }, clients: { type: 'string', default: '2' } } });
const RUNS = Number(values.runs);
const CLIENTS = Number(values.clients);
const PDF = 'DA-619p.pdf';
const SEED = 'unstructured-repo-README.md';
const METRICS_TOKEN = 'bench-metrics-token';
const IDLE_MS = 3000;

const quantile = (xs: number[], q: number) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
};
const ms = (x: number) => (Number.isFinite(x) ? Math.round(x * 10) / 10 : '-');

/** Seconds pdftotext takes on the file (best of three: the first run also reads it from disk), or null without poppler-utils. */
function pdftotextSeconds(file: string): number | null {
  if (spawnSync('pdftotext', ['-v']).error) return null;
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    execFileSync('pdftotext', [file, '/dev/null']);
    best = Math.min(best, (performance.now() - t0) / 1000);
  }
  return best;
}

/** Scrapes the web process's loop delay every 250 ms; each scrape resets its histogram. */
function loopSampler(b: BenchServer) {
  let max = 0;
  let p99 = 0;
  let stopped = false;
  const scrape = async () => {
    const res = await fetch(`${b.server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    const text = await res.text();
    const read = (name: string) => Number(new RegExp(`^${name} ([\\d.e+-]+)`, 'm').exec(text)?.[1] ?? NaN) * 1000;
    max = Math.max(max, read('nodejs_eventloop_lag_max_seconds'));
    p99 = Math.max(p99, read('nodejs_eventloop_lag_p99_seconds'));
  };
  const done = (async () => {
    while (!stopped) {
      await scrape().catch(() => {});
      await new Promise((r) => setTimeout(r, 250));
    }
    await scrape().catch(() => {});
  })();
  return {
    async reset() {
      await scrape();
      max = 0;
      p99 = 0;
    },
    async stop() {
      stopped = true;
      await done;
      return { max, p99 };
    },
  };
}

/** CLIENTS clients each alternating GET /api/kbs and POST /api/rag/search until stopped, 20 ms apart. */
function apiClients(b: BenchServer, kbId: string) {
  const kbs: number[] = [];
  const search: number[] = [];
  let errors = 0;
  let stopped = false;
  const timed = async (into: number[], url: string, init: RequestInit) => {
    const t0 = performance.now();
    try {
      const res = await fetch(url, init);
      await res.arrayBuffer();
      into.push(performance.now() - t0);
      if (res.status !== 200) errors++;
    } catch {
      errors++; // counted, not timed: a refused or reset connection has no latency to report
    }
  };
  const headers = { 'x-api-key': b.key, 'content-type': 'application/json' };
  const queries = ['How do I install it?', 'Which file types are supported?', 'What does the partition function return?'];
  const loops = Array.from({ length: CLIENTS }, async (_, c) => {
    for (let i = c; !stopped; i++) {
      await timed(kbs, `${b.server.url}/api/kbs`, { headers });
      await timed(search, `${b.server.url}/api/rag/search`, { method: 'POST', headers, body: JSON.stringify({ kb_id: kbId, query: queries[i % queries.length] }) });
      await new Promise((r) => setTimeout(r, 20));
    }
  });
  return {
    async stop() {
      stopped = true;
      await Promise.all(loops);
      return { kbs, search, errors };
    },
  };
}

/**
 * Polls the document until it settles; samples the server's RSS. A failed poll is retried once (a
 * keep-alive socket closed under the client), and a server that exited is reported with its output.
 */
async function waitReady(b: BenchServer, kbId: string, id: string, peak: { mb: number }): Promise<Doc> {
  const sampler = setInterval(() => (peak.mb = Math.max(peak.mb, rssMb(b.server.child.pid!))), 50);
  try {
    for (let failures = 0; ; ) {
      if (b.server.child.exitCode !== null) throw new Error(`server exited with ${b.server.child.exitCode}:\n${b.server.output().slice(-4000)}`);
      try {
        const doc = await getDoc(b, kbId, id);
        failures = 0;
        if (doc.status !== 'processing') return doc;
      } catch (err) {
        if (++failures > 1) throw err;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    clearInterval(sampler);
  }
}

async function upload(b: BenchServer, kbId: string, file: string): Promise<string> {
  const res = await fetch(`${b.server.url}/api/ingest/upload`, { method: 'POST', headers: { 'x-api-key': b.key }, body: fileForm(kbId, [{ name: file, bytes: readFileSync(path.join(DOCS, file)) }]) });
  if (res.status !== 202) throw new Error(`${file}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { document: { id: string } }).document.id;
}

/** The PDF alone on a fresh server, nothing else running: upload to ready. */
async function alone(pdftotext: number | null) {
  const b = await startBenchServer('embedded');
  try {
    const kb = await newKb(b, 'PDF');
    const peak = { mb: rssMb(b.server.child.pid!) };
    const t0 = performance.now();
    const id = await upload(b, kb, PDF);
    const doc = await waitReady(b, kb, id, peak);
    const readyS = (performance.now() - t0) / 1000;
    console.log(
      `${PDF} alone: ${doc.status} in ${readyS.toFixed(1)} s (upload to ready), ${doc.pages} pages, ${doc.chunk_count} chunks, peak RSS ${Math.round(peak.mb)} MB; ` +
        (pdftotext === null ? 'pdftotext not installed (apt-get install poppler-utils)' : `pdftotext ${pdftotext.toFixed(2)} s, ratio ${(readyS / pdftotext).toFixed(1)}x`),
    );
  } finally {
    await b.stop();
  }
}

/** A fresh server with a small seeded KB: the API clients idle, then while the PDF ingests. */
async function underLoad() {
  const b = await startBenchServer('embedded', { METRICS_TOKEN });
  try {
    const seedKb = await newKb(b, 'Seed');
    const seeded = await waitReady(b, seedKb, await upload(b, seedKb, SEED), { mb: 0 });
    if (seeded.status !== 'ready') throw new Error(`${SEED} did not ingest: ${seeded.error}`);

    // Idle: the same clients, nothing ingesting.
    const loop = loopSampler(b);
    await loop.reset();
    let clients = apiClients(b, seedKb);
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const idleApi = await clients.stop();
    const idleLoop = await loop.stop();

    const pdfKb = await newKb(b, 'PDF');
    const busyLoop = loopSampler(b);
    await busyLoop.reset();
    clients = apiClients(b, seedKb);
    const peak = { mb: rssMb(b.server.child.pid!) };
    const t0 = performance.now();
    const id = await upload(b, pdfKb, PDF);
    const doc = await waitReady(b, pdfKb, id, peak);
    const readyS = (performance.now() - t0) / 1000;
    const busyApi = await clients.stop();
    const busy = await busyLoop.stop();

    console.log(`${PDF} with ${CLIENTS} API clients: ${doc.status} in ${readyS.toFixed(1)} s, peak RSS ${Math.round(peak.mb)} MB`);
    console.table({
      idle: {
        'loop max (ms)': ms(idleLoop.max),
        'loop p99 (ms)': ms(idleLoop.p99),
        'GET /api/kbs p50 / p95 / max (ms)': `${ms(quantile(idleApi.kbs, 0.5))} / ${ms(quantile(idleApi.kbs, 0.95))} / ${ms(Math.max(...idleApi.kbs))}`,
        'search p50 / p95 / max (ms)': `${ms(quantile(idleApi.search, 0.5))} / ${ms(quantile(idleApi.search, 0.95))} / ${ms(Math.max(...idleApi.search))}`,
        requests: idleApi.kbs.length + idleApi.search.length,
        errors: idleApi.errors,
      },
      'ingesting the PDF': {
        'loop max (ms)': ms(busy.max),
        'loop p99 (ms)': ms(busy.p99),
        'GET /api/kbs p50 / p95 / max (ms)': `${ms(quantile(busyApi.kbs, 0.5))} / ${ms(quantile(busyApi.kbs, 0.95))} / ${ms(Math.max(...busyApi.kbs))}`,
        'search p50 / p95 / max (ms)': `${ms(quantile(busyApi.search, 0.5))} / ${ms(quantile(busyApi.search, 0.95))} / ${ms(Math.max(...busyApi.search))}`,
        requests: busyApi.kbs.length + busyApi.search.length,
        errors: busyApi.errors,
      },
    });
  } finally {
    await b.stop();
  }
}

const pdftotext = pdftotextSeconds(path.join(DOCS, PDF));
console.log(`embedded default under ingestion: ${CLIENTS} API clients, load average ${execFileSync('cat', ['/proc/loadavg']).toString().split(' ').slice(0, 3).join(' ')}`);
for (let i = 0; i < RUNS; i++) {
  await alone(pdftotext);
  await underLoad();
}
