/**
 * Issue 26's attack, every class at once (bench/abuse.ts): one organisation sends nested GraphQL
 * reads, a 1 MB ZIP of ten 20 MB one-character files, a 26 MB text file, 14 MB of words in
 * paragraphs and the same words on one line, 24 MB of base64 on one line, a ZIP of 5,000 tiny files,
 * HEAD on a one-time sign-in link, cross-origin preflights and the older classes, all in parallel,
 * while the other lists its KBs, searches and uploads a 2-chunk Markdown file. Reports each hostile
 * request's status, whether its body is a JSON error with a message, and its time; the victim's
 * p95 and its file's upload→ready time; the server's peak RSS and its RSS a minute later.
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { zipSync } from 'fflate';
import { percentile } from './abuse';
import { neighbourProcess } from './neighbour-process';
import type { Orgs } from './abuse-run';
import { rssMb, type StartedServer } from './server-process';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MB = 1024 * 1024;

export type Hostile = { name: string; status: number; json: string; ms: number; ok: boolean };

function cliJson(dataDir: string, args: string[]): Promise<any> {
  const { PORT: _p, ...env } = process.env;
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ['src/app-bundle/launch.mjs', 'cli', ...args, '--json'], { cwd: ROOT, env: { ...env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn' }, timeout: 120_000 }, (err, out, stderr) =>
      err ? reject(new Error(stderr)) : resolve(JSON.parse(out)),
    ),
  );
}

/** Prose of `words` distinct-enough words, so chunks are real chunks (not collapsed as degenerate). */
function prose(words: number, seed: number): string {
  const out: string[] = [];
  let x = seed;
  for (let i = 0; i < words; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out.push(`w${(x % 5000).toString(36)}${i % 17 === 16 ? '.\n\n' : ''}`);
  }
  return out.join(' ');
}

async function uploadFile(url: string, key: string, kbId: string, name: string, data: Uint8Array<ArrayBuffer> | string) {
  const form = new FormData();
  form.set('kb_id', kbId);
  form.set('file', new Blob([data]), name);
  return fetch(`${url}/api/ingest/upload`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
}

async function waitReady(url: string, key: string, kbId: string, docIds: string[], timeoutMs: number): Promise<boolean> {
  const until = performance.now() + timeoutMs;
  while (performance.now() < until) {
    const res = await fetch(`${url}/api/kbs/${kbId}/documents`, { headers: { 'x-api-key': key } }).catch(() => null);
    if (res?.ok) {
      const docs = ((await res.json()) as { documents: Array<{ id: string; status: string }> }).documents;
      if (docIds.every((id) => docs.find((d) => d.id === id)?.status === 'ready')) return true;
      if (docIds.some((id) => docs.find((d) => d.id === id)?.status === 'failed')) return false;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

/** The attacker's KB gets a few hundred chunks first, so nested reads have something to return. */
export async function seedAttacker(orgs: Orgs): Promise<void> {
  const { url, key, kbId } = orgs.attacker;
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await uploadFile(url, key, kbId, `seed-${i}.txt`, prose(20_000, i + 1));
    ids.push(((await res.json()) as { document: { id: string } }).document.id);
  }
  await waitReady(url, key, kbId, ids, 600_000);
}

async function timed(name: string, send: () => Promise<Response | { status: number; body: string; headers?: Record<string, string> }>, check?: (r: { status: number; body: string; headers: Headers | Record<string, string> }) => boolean): Promise<Hostile> {
  const started = performance.now();
  try {
    const res = await send();
    const body = res instanceof Response ? await res.text() : res.body;
    const headers = res instanceof Response ? res.headers : (res.headers ?? {});
    const ms = performance.now() - started;
    let json = 'no';
    try {
      const parsed = JSON.parse(body);
      const message = parsed?.error?.message ?? parsed?.errors?.[0]?.message;
      json = message ? `yes: ${String(message).slice(0, 90)}` : parsed?.batch?.id || parsed?.documents || parsed?.document ? 'yes (accepted)' : 'yes';
    } catch {
      json = body.length ? 'no' : 'n/a (no body)';
    }
    const fine = check ? check({ status: res.status, body, headers }) : res.status < 500 && json.startsWith('yes') && (res.status >= 400 || res.status === 202);
    return { name, status: res.status, json, ms, ok: fine && ms < 5_000 };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? '';
    return { name, status: 0, json: `error ${(err as Error).message} ${cause}`, ms: performance.now() - started, ok: false };
  }
}

function rawHead(url: string): Promise<{ status: number; body: string; headers: Record<string, string> }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'HEAD' }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: '', headers: res.headers as Record<string, string> }));
    });
    req.on('error', reject);
    req.end();
  });
}

export async function hostileRun(server: StartedServer, orgs: Orgs, dataDir: string, opts: { afterSeconds: number }) {
  const { url, key, kbId } = orgs.attacker;
  const json = (p: string, body: string, extra: Record<string, string> = {}) => () =>
    fetch(`${url}${p}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json', ...extra }, body });
  const graphql = (query: string) => json('/graphql', JSON.stringify({ query }));

  // Generated before the clock starts (seconds of this process's CPU).
  const nested = `{ ${Array.from({ length: 15 }, (_, i) => `a${i}: knowledgeBases { documents { filename chunks(first: 200) { nodes { text headingPath } } } }`).join(' ')} }`;
  const bombZip = zipSync(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`big-${i}.txt`, new Uint8Array(20 * MB).fill(0x61 + i)])), { level: 9 });
  const tinyZip = zipSync(Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`f${i}.txt`, new TextEncoder().encode(`Note ${i}: refunds take ${i % 30} days.`)])), { level: 9 });
  const big26 = new Uint8Array(26 * MB).fill(0x62);
  // 3 million words: 14 MB.
  const words14 = prose(3_000_000, 7);
  const oneLine14 = words14.replaceAll('\n', ' ');
  // One 24 MB "word": base64 of seeded bytes, no space or line break anywhere.
  const base64Line24 = Buffer.from(Uint8Array.from({ length: 18 * MB }, (_, i) => (i * 2654435761) >>> 24)).toString('base64');
  const aliases20k = `{ ${Array.from({ length: 20_000 }, (_, i) => `a${i}: __typename`).join(' ')} }`;
  const deep = `{ ${'knowledgeBases { '.repeat(5_000)}id${' }'.repeat(5_000)} }`;
  const json30 = JSON.stringify({ name: 'x'.repeat(30 * MB) });
  const link = (await cliJson(dataDir, ['dashboard', 'link', '--org', 'default'])) as { url: string };
  const chunk = new Uint8Array(MB).fill(0x61);
  let mbLeft = 150;

  const rssSamples: number[] = [];
  let peak = rssMb(server.child.pid!);
  const rssTimer = setInterval(() => {
    try {
      const now = rssMb(server.child.pid!);
      peak = Math.max(peak, now);
      rssSamples.push(now);
    } catch {
      // gone: reported by the exit check
    }
  }, 200);
  // The victim is another client: its own process, so it waits only on the server.
  const neighbour = await neighbourProcess(orgs.victim);

  const started = performance.now();
  const attacks: Array<Promise<Hostile>> = [
    ...Array.from({ length: 6 }, (_, i) => timed(`GraphQL 15 aliases of knowledgeBases.documents.chunks(first: 200) #${i + 1}`, graphql(nested))),
    timed('ZIP of ten 20 MB one-character files (1 MB)', () => uploadFile(url, key, kbId, 'bomb.zip', bombZip)),
    timed('26 MB text file', () => uploadFile(url, key, kbId, 'big.txt', big26)),
    timed('14 MB text file of words', () => uploadFile(url, key, kbId, 'words.txt', words14)),
    timed('14 MB text file of one line', () => uploadFile(url, key, kbId, 'line.txt', oneLine14)),
    timed('24 MB text file of base64 (no space)', () => uploadFile(url, key, kbId, 'blob.txt', base64Line24)),
    timed('ZIP of 5,000 tiny files', () => uploadFile(url, key, kbId, 'tiny.zip', tinyZip)),
    timed('HEAD on a one-time sign-in link', () => rawHead(link.url), (r) => r.status !== 303 && !(r.headers as Record<string, string>)['set-cookie'] && r.status < 500),
    timed('cross-origin OPTIONS /graphql', () => fetch(`${url}/graphql`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-groundwork-csrf' } }), (r) => r.status < 500 && !(r.headers as Headers).get('access-control-allow-credentials')),
    timed('GraphQL 20,000 aliases', graphql(aliases20k)),
    timed('GraphQL nested 5,000 deep', graphql(deep)),
    timed('30 MB JSON body', json('/api/kbs', json30)),
    timed('NUL in a KB name', json('/api/kbs', JSON.stringify({ name: 'a\u0000b' }))),
    timed('150 MB streamed body to /graphql', () =>
      fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: new ReadableStream({ pull: (c) => (mbLeft-- > 0 ? c.enqueue(chunk) : c.close()) }),
        duplex: 'half',
      } as RequestInit),
    ),
    timed('tRPC batch of 50 KB lists', () => fetch(`${url}/trpc/${Array.from({ length: 50 }, () => 'kbs.list').join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify({}))}`, { headers: { 'x-api-key': key } }), (r) => r.status < 500),
    timed("another organisation's KB", () => fetch(`${url}/api/kbs/${orgs.victim.kbId}`, { headers: { 'x-api-key': key } }), (r) => r.status === 404),
  ];
  // The victim's small file, sent while the attack runs.
  const victimFile = (async () => {
    await new Promise((r) => setTimeout(r, 1_000));
    const t0 = performance.now();
    const res = await uploadFile(orgs.victim.url, orgs.victim.key, orgs.victim.kbId, 'returns.md', '# Returns\n\nItems may be returned within 30 days of delivery.\n\n## Refunds\n\nRefunds are issued to the original payment method within 5 business days.\n');
    const id = ((await res.json()) as { document: { id: string } }).document.id;
    const ready = await waitReady(orgs.victim.url, orgs.victim.key, orgs.victim.kbId, [id], 300_000);
    return { ready, ms: performance.now() - t0 };
  })();
  const hostile = await Promise.all(attacks);
  const attackSeconds = (performance.now() - started) / 1000;
  const small = await victimFile;
  const n = await neighbour.stop();
  const peakDuring = peak;
  // A minute after the attack's requests are answered (the worker may still be refusing what it accepted).
  await new Promise((r) => setTimeout(r, opts.afterSeconds * 1000));
  clearInterval(rssTimer);
  const after = rssMb(server.child.pid!);
  return {
    hostile,
    attackSeconds,
    victim: { kbsP95: percentile(n.kbs, 95), searchP95: percentile(n.search, 95), requests: n.kbs.length + n.search.length, failures: n.failures, smallFile: small },
    peakRssMb: Math.max(peakDuring, peak),
    rssAfterMb: after,
    alive: server.child.exitCode === null,
  };
}
