/**
 * The victim of the abuse bench in a process of its own: another organisation is another client,
 * so its requests must not wait behind the attacker's client (the same event loop sending 200 MB
 * of hostile bodies), only behind the server. Run by `neighbourProcess`; as a child it measures
 * until told to stop (IPC), then sends its samples back.
 */
import { fork } from 'node:child_process';
import type { Target } from './abuse-target';

export type NeighbourSamples = { kbs: number[]; search: number[]; failures: string[] };
export type NeighbourKind = 'kbs' | 'search';

/** Starts the victim's client in a child process; `stop()` ends it and resolves to its samples. */
export async function neighbourProcess(target: Target, kinds: NeighbourKind[] = ['kbs', 'search']): Promise<{ stop: () => Promise<NeighbourSamples> }> {
  const child = fork(import.meta.filename, [JSON.stringify(target), JSON.stringify(kinds)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const result = new Promise<NeighbourSamples>((resolve, reject) => {
    child.on('message', (m: { ready?: true; samples?: NeighbourSamples }) => m.samples && resolve(m.samples));
    child.on('exit', (code) => reject(new Error(`neighbour process exited with ${code} before its samples`)));
  });
  await new Promise<void>((resolve, reject) => {
    child.on('message', (m: { ready?: true }) => m.ready && resolve());
    child.on('exit', reject);
  });
  return {
    stop: async () => {
      child.send('stop');
      return result;
    },
  };
}

const NEIGHBOUR_PAIR_MS = 250;

/** Another organisation's requests: GET /api/kbs and a search (or only `kinds`), in turn, until `stopped()`. */
export async function measureNeighbourSamples(target: Target, stopped: () => boolean, kinds: NeighbourKind[] = ['kbs', 'search']): Promise<NeighbourSamples> {
  const out: NeighbourSamples = { kbs: [], search: [], failures: [] };
  while (!stopped()) {
    const pairStarted = performance.now();
    for (const [kind, init] of [
      ['kbs', { method: 'GET' }],
      ['search', { method: 'POST', body: JSON.stringify({ kb_id: target.kbId, query: 'How long do refunds take?' }) }],
    ] as const) {
      if (!kinds.includes(kind)) continue;
      const started = performance.now();
      const res = await fetch(`${target.url}${kind === 'kbs' ? '/api/kbs' : '/api/rag/search'}`, {
        ...init,
        headers: { 'x-api-key': target.key, 'content-type': 'application/json' },
      }).catch((e: Error) => e);
      if (res instanceof Error || res.status !== 200) {
        const cause = res instanceof Error ? (res.cause as { code?: string; message?: string } | undefined) : undefined;
        out.failures.push(res instanceof Error ? `${kind}: ${res.message} ${cause?.code ?? ''} ${cause?.message ?? ''}` : `${kind} ${res.status}`);
      } else await res.arrayBuffer();
      out[kind].push(performance.now() - started);
    }
    // A pair every 250 ms at most: 480 requests a minute, inside its key's 600 (RATE_LIMIT_PER_MINUTE's
    // default). On a fast machine the quiet victim answered in ~15 ms and, pausing only 100 ms, went
    // over it in the minute-long flood: its own 429s were counted as failures the attacker caused.
    await new Promise((r) => setTimeout(r, Math.max(100, NEIGHBOUR_PAIR_MS - (performance.now() - pairStarted))));
  }
  return out;
}

// Run as the child of neighbourProcess (never when imported).
if (process.argv[1] === import.meta.filename && process.send && process.argv[2]) {
  let stopped = false;
  process.on('message', () => (stopped = true));
  process.send({ ready: true });
  const kinds = process.argv[3] ? (JSON.parse(process.argv[3]) as NeighbourKind[]) : undefined;
  const samples = await measureNeighbourSamples(JSON.parse(process.argv[2]) as Target, () => stopped, kinds);
  process.send({ samples }, () => process.exit(0));
}
