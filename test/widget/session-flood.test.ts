/**
 * Anonymous widget conversations are bounded per KB and per visitor apart from keyed ones, and
 * eviction never removes a conversation carrying feedback (issue 44: 5,425 anonymous chats from one
 * address removed the owner's API conversation and a rated visitor conversation). Ratings are capped
 * per conversation and per organisation per day. Caps are small here; production defaults are large.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app';
import { restClient } from '../helpers/api-client';
import { createWidgetOrg, createWidgetTestApp, widgetClient, type SseEvent, type WidgetOrg } from './widget-fixture';

const SHOP = 'https://shop.example.com';
const PER_KB = 6;
const PER_VISITOR = 3;

let t: Awaited<ReturnType<typeof createWidgetTestApp>>;
let app: App;
let acme: WidgetOrg;
let clock = Date.UTC(2026, 11, 2, 12, 0, 0);

beforeAll(async () => {
  t = await createWidgetTestApp({
    env: {
      WIDGET_RATE_LIMIT_PER_MINUTE: '100000',
      WIDGET_SESSION_RATE_LIMIT_PER_MINUTE: '100000',
      WIDGET_ANONYMOUS_SESSIONS_PER_KB: String(PER_KB),
      WIDGET_ANONYMOUS_SESSIONS_PER_VISITOR: String(PER_VISITOR),
      FEEDBACK_PER_SESSION: '1',
      FEEDBACK_PER_ORG_PER_DAY: '3',
    },
  });
  app = createApp({ ...t.deps, now: () => clock });
  acme = await createWidgetOrg(t);
});
afterAll(() => t?.close());

/** A visitor's browser: its own socket address, the shop's origin. */
function visitor(address: string) {
  const env = { incoming: { socket: { remoteAddress: address } } };
  const post = (path: string, body: unknown, token: string) =>
    app.fetch(
      new Request(`http://groundwork.test/api/widget/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: SHOP, authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      }),
      env,
    );
  let token = '';
  return {
    async start() {
      token = await widgetClient(app, SHOP).token(acme.slug, acme.kbId);
    },
    /** One message; a new conversation unless `session_id` is given. Returns its session and answer ids. */
    async chat(sessionId?: string) {
      const res = await post('chat', { message: 'What is the Zephyr-9 battery life?', ...(sessionId ? { session_id: sessionId } : {}) }, token);
      expect(res.status).toBe(200);
      const events: SseEvent[] = (await res.text())
        .split('\n\n')
        .map((b) => ({ event: /^event: ?(.*)$/m.exec(b)?.[1] ?? '', data: b.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.replace(/^data: ?/, '')).join('\n') }))
        .filter((e) => e.event)
        .map((e) => ({ event: e.event, data: JSON.parse(e.data) }));
      return { sessionId: events.find((e) => e.event === 'session')!.data.session_id as string, messageId: events.find((e) => e.event === 'done')!.data.message_id as string };
    },
    rate: (sessionId: string, messageId: string) => post('feedback', { session_id: sessionId, message_id: messageId, rating: 'up' }, token),
    history: (sessionId: string) => post('history', { session_id: sessionId }, token),
  };
}

describe('a flood of anonymous conversations', () => {
  it('evicts only other unrated anonymous conversations: the API conversation and a rated widget one survive', async () => {
    const api = restClient(app, acme.apiKey);
    const apiChat = await api.post('/api/rag/chat', { kb_id: acme.kbId, message: 'What is the Zephyr-9 battery life?' });
    expect(apiChat.status).toBe(200);
    const apiSession = apiChat.body.session_id as string;

    const owner = visitor('198.51.100.7');
    await owner.start();
    const rated = await owner.chat();
    expect((await owner.rate(rated.sessionId, rated.messageId)).status).toBe(200);

    // One address floods: it keeps only its newest PER_VISITOR conversations.
    const flooder = visitor('203.0.113.9');
    await flooder.start();
    const flooded: string[] = [];
    for (let i = 0; i < PER_VISITOR + 3; i++) flooded.push((await flooder.chat()).sessionId);
    const kept = await Promise.all(flooded.map(async (id) => (await flooder.history(id)).status));
    expect(kept).toEqual([...Array(3).fill(404), ...Array(PER_VISITOR).fill(200)]);

    // Many addresses flood: the KB keeps PER_KB anonymous conversations, rated ones never evicted.
    for (let v = 0; v < 4; v++) {
      const other = visitor(`192.0.2.${v + 10}`);
      await other.start();
      for (let i = 0; i < 2; i++) await other.chat();
    }
    const { rows } = await sql<{ n: string }>`select count(*) as n from chat_sessions where kb_id = ${acme.kbId} and source in ('widget', 'voice')`.execute(t.db);
    // The newest PER_KB, and the rated one, older than all of them.
    expect(Number(rows[0]!.n)).toBe(PER_KB + 1);

    const history = await owner.history(rated.sessionId);
    expect(history.status).toBe(200);
    expect(((await history.json()) as any).messages.some((m: any) => m.feedback?.rating === 'up' || m.feedback === 'up')).toBe(true);
    const again = await api.post('/api/rag/chat', { kb_id: acme.kbId, message: 'And its weight?', session_id: apiSession });
    expect(again.status).toBe(200);
    expect(again.body.session_id).toBe(apiSession);
  });
});

describe('feedback caps', () => {
  it('caps ratings per conversation and per organisation per day, with a clear 429', async () => {
    const v = visitor('198.51.100.20');
    await v.start();
    const first = await v.chat();
    expect((await v.rate(first.sessionId, first.messageId)).status).toBe(200);
    const second = await v.chat(first.sessionId);
    const perSession = await v.rate(first.sessionId, second.messageId);
    expect(perSession.status).toBe(429);
    expect(((await perSession.json()) as any).error).toMatchObject({ code: 'rate_limited', message: expect.stringContaining('1 rated answers') });
    // Changing an existing rating is not a new one.
    expect((await v.rate(first.sessionId, first.messageId)).status).toBe(200);

    // The flood test's rating, the first here and its change: the organisation's three for today are spent.
    const other = await v.chat();
    const perOrg = await v.rate(other.sessionId, other.messageId);
    expect(perOrg.status).toBe(429);
    expect(Number(perOrg.headers.get('retry-after'))).toBe(12 * 3600);
    clock += 12 * 3600 * 1000;
    expect((await v.rate(other.sessionId, other.messageId)).status).toBe(200);
  });
});
