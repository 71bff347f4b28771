/**
 * Issue 44's worst-case reads (bench/abuse.ts): the attacker's organisation gets a KB of `docs`
 * Markdown documents of `chunksPerDoc` sections each (one section, one chunk of ~1,000 characters
 * under its own heading), then for each class four attackers send the read back to back for
 * `seconds` while another organisation lists its KBs (GET /api/kbs, in a process of its own). The
 * victim is measured idle first, then during the attack, then for a few seconds after the attackers
 * have gone (their requests still running at the end are aborted: the server should stop their
 * work). Reports, per class, the attackers' answers by status and error code, their times and
 * sizes, and the victim's p50/p95 in each phase.
 */
import type { Orgs } from '../../test/helpers/abuse-run';
import { percentile } from '../../test/helpers/abuse';
import { neighbourProcess } from '../../test/helpers/neighbour-process';

export type ReadClass = {
  name: string;
  attackers: { answers: Record<string, number>; messages: Record<string, string>; p50Ms: number; maxMs: number; meanBytes: number; abortedAtEnd: number };
  victim: Record<'idle' | 'during' | 'after', { p50: number; p95: number; n: number; failures: string[] }>;
};

/** Seeded words, so every section's text is its own (no chunk is a duplicate of another). */
function words(n: number, seed: number): string {
  const out: string[] = [];
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) & 0x7fffffff;
    out.push(`${'bcdfghklmnprstvz'[x % 16]}${'aeiou'[(x >> 4) % 5]}${'lnrst'[(x >> 7) % 5]}${(x >> 10) % 1000}${i % 14 === 13 ? '.' : ''}`);
  }
  return out.join(' ');
}

function document(d: number, sections: number): string {
  const parts = [`# Handbook ${d}`];
  for (let s = 0; s < sections; s++) parts.push(`## Part ${d}.${s}\n\n${words(150, d * 100_003 + s + 1)}.`);
  return parts.join('\n\n');
}

async function json(res: Response): Promise<any> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${res.status} ${text.slice(0, 200)}`);
  }
}

/** A new KB in the attacker's organisation with `docs` × `chunksPerDoc` chunks, every document ready. */
export async function seedManyChunks(orgs: Orgs, opts: { docs: number; chunksPerDoc: number; timeoutMs: number }) {
  const { url, key } = orgs.attacker;
  const headers = { 'x-api-key': key };
  const started = performance.now();
  const kb = await json(await fetch(`${url}/api/kbs`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{"name":"many chunks"}' }));
  const kbId = kb.kb.id as string;
  let next = 0;
  const failures: string[] = [];
  await Promise.all(
    Array.from({ length: 2 }, async () => {
      while (next < opts.docs) {
        const d = next++;
        const form = new FormData();
        form.set('kb_id', kbId);
        form.set('file', new Blob([document(d, opts.chunksPerDoc)]), `handbook-${d}.md`);
        const res = await fetch(`${url}/api/ingest/upload`, { method: 'POST', headers, body: form });
        if (res.status >= 300) failures.push(`upload ${d}: ${res.status} ${(await res.text()).slice(0, 200)}`);
        else await res.arrayBuffer();
      }
    }),
  );
  if (failures.length) throw new Error(failures.join('\n'));
  const until = performance.now() + opts.timeoutMs;
  for (;;) {
    const listed = await json(await fetch(`${url}/api/kbs/${kbId}/documents`, { headers }));
    const docs = listed.documents as Array<{ id: string; status: string; chunk_count: number; error?: unknown }>;
    const failed = docs.filter((d) => d.status === 'failed');
    if (failed.length) throw new Error(`seed documents failed: ${JSON.stringify(failed[0])}`);
    if (docs.length === opts.docs && docs.every((d) => d.status === 'ready')) {
      return { kbId, docIds: docs.map((d) => d.id), chunks: docs.reduce((n, d) => n + d.chunk_count, 0), seconds: (performance.now() - started) / 1000 };
    }
    if (performance.now() > until) throw new Error(`seed not ready after ${opts.timeoutMs} ms: ${docs.filter((d) => d.status === 'ready').length}/${opts.docs} ready`);
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

/** The two classes of issue 44: the nested GraphQL read and the tRPC batch of 20 chunk pages. */
export function worstReads(orgs: Orgs, seeded: { kbId: string; docIds: string[] }) {
  const { url, key } = orgs.attacker;
  const nested = `{ knowledgeBase(id: ${JSON.stringify(seeded.kbId)}) { documents { chunks(first: 199) { nodes { id text headingPath duplicates } } } } }`;
  const batchInput = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [String(i), { kb_id: seeded.kbId, id: seeded.docIds[i % seeded.docIds.length]!, limit: 200 }]));
  const batchPath = `/trpc/${Array.from({ length: 20 }, () => 'documents.chunks').join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify(batchInput))}`;
  return [
    {
      name: 'GraphQL knowledgeBase { documents { chunks(first: 199) { nodes { id text headingPath duplicates } } } }',
      send: (signal: AbortSignal) => fetch(`${url}/graphql`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ query: nested }), signal }),
    },
    {
      name: 'tRPC batch of 20 documents.chunks (limit 200 each)',
      send: (signal: AbortSignal) => fetch(`${url}${batchPath}`, { headers: { 'x-api-key': key }, signal }),
    },
  ];
}

/** A GraphQL or tRPC answer's outcome: its status and its first error's code (`200` alone when it has none). */
function outcomeOf(status: number, body: string): { label: string; message: string | null } {
  let parsed: any;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { label: `${status} non-JSON`, message: body.slice(0, 120) };
  }
  const errors: any[] = Array.isArray(parsed)
    ? parsed.map((r) => r?.error).filter(Boolean) // a tRPC batch: one entry per call
    : parsed?.errors ?? (parsed?.error ? [parsed.error] : []);
  if (!errors.length) return { label: String(status), message: null };
  const e = errors[0];
  const code = e?.extensions?.app_code ?? e?.extensions?.code ?? e?.json?.data?.code ?? e?.data?.code ?? e?.code ?? e?.json?.code ?? 'error';
  const message = e?.message ?? e?.json?.message ?? JSON.stringify(e).slice(0, 200);
  return { label: `${status} ${code}${Array.isArray(parsed) ? ` (${errors.length}/${parsed.length} calls)` : ''}`, message: String(message).slice(0, 200) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The victim organisation's GET /api/kbs from its own process, for `ms`. */
export async function victimFor(orgs: Orgs, ms: number) {
  const victim = await neighbourProcess(orgs.victim, ['kbs']);
  await sleep(ms);
  return victim.stop();
}

function summary(kbs: number[], failures: string[]) {
  return { p50: percentile(kbs, 50), p95: percentile(kbs, 95), n: kbs.length, failures };
}

type VictimRun = { kbs: number[]; failures: string[] };

/** A class's figures as every class prints them: the attackers' answers and the victim before, during and after. */
export function classFigures(
  attackers: { answers: ReadClass['attackers']['answers']; messages: ReadClass['attackers']['messages']; times: number[]; sizes: number[]; abortedAtEnd: number },
  victim: { idle: VictimRun; during: VictimRun; after: VictimRun },
): Pick<ReadClass, 'attackers' | 'victim'> {
  const { answers, messages, times, sizes, abortedAtEnd } = attackers;
  return {
    attackers: {
      answers,
      messages,
      p50Ms: percentile(times, 50),
      maxMs: times.length ? Math.max(...times) : 0,
      meanBytes: sizes.length ? sizes.reduce((a, b) => a + b, 0) / sizes.length : 0,
      abortedAtEnd,
    },
    victim: { idle: summary(victim.idle.kbs, victim.idle.failures), during: summary(victim.during.kbs, victim.during.failures), after: summary(victim.after.kbs, victim.after.failures) },
  };
}

export async function runReadClass(orgs: Orgs, cls: { name: string; send: (signal: AbortSignal) => Promise<Response> }, opts: { attackers: number; seconds: number; idleSeconds: number; afterSeconds: number }): Promise<ReadClass> {
  const idle = await victimFor(orgs, opts.idleSeconds * 1000);
  const victim = await neighbourProcess(orgs.victim, ['kbs']);
  const leave = new AbortController();
  const answers: Record<string, number> = {};
  const messages: Record<string, string> = {};
  const times: number[] = [];
  const sizes: number[] = [];
  let abortedAtEnd = 0;
  const until = performance.now() + opts.seconds * 1000;
  const timer = setTimeout(() => leave.abort(), opts.seconds * 1000);
  await Promise.all(
    Array.from({ length: opts.attackers }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        try {
          const res = await cls.send(leave.signal);
          const body = await res.text();
          times.push(performance.now() - t0);
          sizes.push(Buffer.byteLength(body));
          const { label, message } = outcomeOf(res.status, body);
          answers[label] = (answers[label] ?? 0) + 1;
          if (message && !messages[label]) messages[label] = message;
          // A refused attacker waits as long as it was told to (a real client would), at most a second.
          const retry = Number(res.headers.get('retry-after'));
          if (res.status === 429 && retry > 0) await sleep(Math.min(1_000, retry * 1000, until - performance.now()));
        } catch (err) {
          if (leave.signal.aborted) abortedAtEnd++;
          else {
            const label = `0 ${(err as Error).message}`;
            answers[label] = (answers[label] ?? 0) + 1;
          }
        }
      }
    }),
  );
  clearTimeout(timer);
  leave.abort();
  const during = await victim.stop();
  const after = await victimFor(orgs, opts.afterSeconds * 1000);
  return { name: cls.name, ...classFigures({ answers, messages, times, sizes, abortedAtEnd }, { idle, during, after }) };
}
