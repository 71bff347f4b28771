/**
 * Issue 44's session-flood class (bench/abuse.ts): strangers must not evict a KB's conversations.
 * The owner's organisation gets a KB of its own with one small document; before the flood the owner
 * holds an API conversation (POST /api/rag/chat with its key) and a visitor a widget conversation
 * whose answer is rated. Then `chats` anonymous widget chats without a session id (each one a new
 * conversation) are sent the way the widget sends them: a token from POST /api/widget/session per
 * simulated page, then POST /api/widget/chat from the site's Origin, the SSE answer read to its end.
 * All come from this machine's one address (the bench's server does not trust X-Forwarded-For), so
 * the per-visitor bound is the one the flood meets. Another organisation lists its KBs meanwhile, as
 * in the other classes (bench/lib/worst-reads.ts). Afterwards, through the owner's key: both
 * conversations read back (GET tRPC chat.conversation, 200, the rating still on it) and the KB's
 * anonymous conversations are counted (tRPC chat.conversations, source widget, page by page).
 */
import type { Orgs } from '../../test/helpers/abuse-run';
import { neighbourProcess } from '../../test/helpers/neighbour-process';
import { classFigures, victimFor, type ReadClass } from './worst-reads';

/** Any origin: a new organisation's allowlist is empty, which allows every site. */
const ORIGIN = 'https://shop.example';
const QUESTION = 'How long do refunds take?';

export type SessionFlood = ReadClass & {
  chats: number;
  seconds: number;
  sessionsCreated: number;
  tokens: number;
  survivors: Array<{ name: string; status: number; detail: string }>;
  anonymousAfter: number;
  bounds: { perVisitor: number; perKb: number };
  fiveXx: number;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function json(res: Response, what: string): Promise<any> {
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

/** The events of an SSE answer, each `data` parsed. */
function sseEvents(body: string): Array<{ event: string; data: any }> {
  return body
    .split('\n\n')
    .map((b) => ({ event: /^event: ?(.*)$/m.exec(b)?.[1] ?? '', data: b.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.replace(/^data: ?/, '')).join('\n') }))
    .filter((e) => e.event)
    .map((e) => {
      try {
        return { event: e.event, data: JSON.parse(e.data) };
      } catch {
        return { event: e.event, data: e.data };
      }
    });
}


export async function runSessionFlood(
  orgs: Orgs,
  opts: { chats: number; concurrency: number; idleSeconds: number; afterSeconds: number; bounds: { perVisitor: number; perKb: number } },
): Promise<SessionFlood> {
  const { url, key } = orgs.attacker;
  const keyed = { 'x-api-key': key, 'content-type': 'application/json' };
  let fiveXx = 0;
  const count5xx = (res: Response) => (res.status >= 500 ? fiveXx++ : 0, res);
  const trpc = async (proc: string, input: unknown) => count5xx(await fetch(`${url}/trpc/${proc}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers: { 'x-api-key': key } }));

  // A class run before this one may have spent the organisation's request budget: wait it out.
  for (let until = performance.now() + 120_000; ; ) {
    const res = await fetch(`${url}/api/kbs`, { headers: { 'x-api-key': key } });
    await res.body?.cancel();
    if (res.status !== 429 || performance.now() > until) break;
    await sleep(Math.min(60, Number(res.headers.get('retry-after')) || 1) * 1000);
  }
  // The owner's KB, one document, ready before anyone chats.
  const kbId = (await json(count5xx(await fetch(`${url}/api/kbs`, { method: 'POST', headers: keyed, body: '{"name":"session flood"}' })), 'create KB')).kb.id as string;
  const form = new FormData();
  form.set('kb_id', kbId);
  form.set('file', new Blob(['# Refunds\n\nRefunds are issued within 14 days of the return arriving. Shipping takes 3 days.']), 'refunds.md');
  await json(count5xx(await fetch(`${url}/api/ingest/upload`, { method: 'POST', headers: { 'x-api-key': key }, body: form })), 'upload');
  for (let until = performance.now() + 600_000; ; ) {
    const docs = (await json(count5xx(await fetch(`${url}/api/kbs/${kbId}/documents`, { headers: { 'x-api-key': key } })), 'documents')).documents as Array<{ status: string }>;
    if (docs.every((d) => d.status === 'ready')) break;
    if (docs.some((d) => d.status === 'failed') || performance.now() > until) throw new Error(`session-flood document not ready: ${JSON.stringify(docs)}`);
    await sleep(500);
  }
  const slug = (await json(count5xx(await fetch(`${url}/graphql`, { method: 'POST', headers: keyed, body: JSON.stringify({ query: '{ organization { slug } }' }) })), 'organization')).data.organization.slug as string;

  const widget = (path: string, body: unknown, token?: string, signal?: AbortSignal) =>
    fetch(`${url}/api/widget/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: ORIGIN, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
      signal,
    }).then(count5xx);
  let tokens = 0;
  const newToken = async () => (tokens++, (await json(await widget('session', { org: slug, kb: kbId }), 'widget session')).token as string);

  // Before the flood: the owner's API conversation and a visitor's rated widget conversation.
  const apiSession = (await json(count5xx(await fetch(`${url}/api/rag/chat`, { method: 'POST', headers: keyed, body: JSON.stringify({ kb_id: kbId, message: QUESTION }) })), 'API chat')).session_id as string;
  const visitorToken = await newToken();
  const visited = await widget('chat', { message: QUESTION }, visitorToken);
  const visitedEvents = sseEvents(await visited.text());
  const ratedSession = visitedEvents.find((e) => e.event === 'session')?.data.session_id as string;
  const ratedMessage = visitedEvents.find((e) => e.event === 'done')?.data.message_id as string;
  if (visited.status !== 200 || !ratedSession || !ratedMessage) throw new Error(`visitor chat: ${visited.status} ${JSON.stringify(visitedEvents).slice(0, 300)}`);
  await json(await widget('feedback', { session_id: ratedSession, message_id: ratedMessage, rating: 'up' }, visitorToken), 'rating');

  const idle = await victimFor(orgs, opts.idleSeconds * 1000);
  const victim = await neighbourProcess(orgs.victim, ['kbs']);
  const answers: Record<string, number> = {};
  const messages: Record<string, string> = {};
  const times: number[] = [];
  const sizes: number[] = [];
  const created = new Set<string>();
  const note = (label: string, message?: string) => {
    answers[label] = (answers[label] ?? 0) + 1;
    if (message && !messages[label]) messages[label] = message.slice(0, 200);
  };
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      // One simulated page per worker: its token is reused, as the widget does, until refused.
      let token = await newToken();
      while (next < opts.chats) {
        next++;
        const t0 = performance.now();
        try {
          const res = await widget('chat', { message: QUESTION }, token);
          const body = await res.text();
          times.push(performance.now() - t0);
          sizes.push(Buffer.byteLength(body));
          if (res.status !== 200) {
            let code = 'error';
            try {
              code = JSON.parse(body).error.code;
            } catch {
              code = 'non-JSON';
            }
            note(`${res.status} ${code}`, body);
            if (res.status === 401) token = await newToken();
            const retry = Number(res.headers.get('retry-after'));
            if (res.status === 429 && retry > 0) await sleep(Math.min(1_000, retry * 1000));
            continue;
          }
          const events = sseEvents(body);
          const error = events.find((e) => e.event === 'error');
          const session = events.find((e) => e.event === 'session')?.data.session_id;
          if (session) created.add(session);
          if (error) note('200 SSE error', JSON.stringify(error.data));
          else if (!events.some((e) => e.event === 'done')) note('200 no done event', body);
          else note('200');
        } catch (err) {
          note(`0 ${(err as Error).message}`);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const during = await victim.stop();
  const after = await victimFor(orgs, opts.afterSeconds * 1000);

  const survivors = [];
  for (const [name, sessionId] of [['API conversation', apiSession], ['rated widget conversation', ratedSession]] as const) {
    const res = await trpc('chat.conversation', { kb_id: kbId, session_id: sessionId });
    const body = await res.text();
    let detail = body.slice(0, 120);
    try {
      const c = JSON.parse(body).result.data;
      detail = `${c.source}, ${c.message_count} messages, ${c.feedback_up} rated up`;
    } catch {
      // not found or not JSON: the body says why
    }
    survivors.push({ name, status: res.status, detail });
  }
  let anonymousAfter = 0;
  for (let cursor: string | null | undefined = undefined; cursor !== null; ) {
    const page = await json(await trpc('chat.conversations', { kb_id: kbId, source: 'widget', limit: 100, ...(cursor ? { cursor } : {}) }), 'conversations');
    anonymousAfter += page.result.data.conversations.length;
    cursor = page.result.data.next_cursor;
  }

  return {
    name: `session flood: ${opts.chats.toLocaleString('en')} anonymous widget chats without a session id, ${opts.concurrency} at a time, from one address`,
    ...classFigures({ answers, messages, times, sizes, abortedAtEnd: 0 }, { idle, during, after }),
    chats: opts.chats,
    seconds,
    sessionsCreated: created.size,
    tokens,
    survivors,
    anonymousAfter,
    bounds: opts.bounds,
    fiveXx,
  };
}
