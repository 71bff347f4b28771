/**
 * The public widget endpoints, through the fetch handler: no API key, CORS, tokens bound to org, KB
 * and origin, refusals that leak nothing, the same chat as /api/rag/chat, and limits.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { rateLimitKeyForIp } from '../../src/rest/routes/widget';
import { signWidgetToken, widgetTokenKey } from '../../src/services/widget/widget-token';
import type { KbId, OrgId } from '../../src/ids';
import { graphqlClient, restClient, trpcClient } from '../helpers/api-client';
import { serveApp } from '../helpers/browser';
import { testConfig, type TestApp } from '../helpers/test-app';
import { createWidgetOrg, createWidgetTestApp, decodeTokenPayload, widgetClient, type WidgetOrg } from './widget-fixture';

const SHOP = 'https://shop.example.com';

let t: TestApp;
let acme: WidgetOrg;
let other: WidgetOrg;
let w: ReturnType<typeof widgetClient>;

beforeAll(async () => {
  // fetch() calls carry no client address: they all share one per-IP bucket, so raise it here.
  t = await createWidgetTestApp({ env: { WIDGET_RATE_LIMIT_PER_MINUTE: '100000', OPENAI_REALTIME_API_KEY: 'sk-test' } });
  acme = await createWidgetOrg(t);
  other = await createWidgetOrg(t, { kbName: 'Other org KB' });
  w = widgetClient(t.app, SHOP);
});
afterAll(() => t?.close());

describe('POST /api/widget/session', () => {
  it('issues a short-lived token bound to org, KB and origin, without an API key, with CORS headers', async () => {
    const before = Date.now();
    const res = await w.session(acme.slug, acme.kbId);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['expires_at', 'expires_in', 'kb', 'token', 'voice']);
    expect(res.body.kb).toEqual({ id: acme.kbId, name: acme.kbName });
    expect(res.body.voice).toEqual({ available: false, reason: 'Voice is switched off in the organisation settings' });
    expect(res.body.expires_in).toBe(1800);
    const expires = Date.parse(res.body.expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + 1799_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 1800_000);
    expect(res.body.token).toMatch(/^[\w-]+\.[\w-]{43}$/);
    expect(decodeTokenPayload(res.body.token)).toMatchObject({ v: 1, org: acme.orgId, kb: acme.kbId, origin: SHOP });

    expect(res.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(res.headers.get('vary')).toMatch(/Origin/);
    expect(res.headers.get('access-control-expose-headers')).toMatch(/Retry-After/i);
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('answers the CORS preflight of any origin', async () => {
    const res = await t.app.fetch(
      new Request('http://groundwork.test/api/widget/chat', {
        method: 'OPTIONS',
        headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, authorization' },
      }),
    );
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://elsewhere.example');
    expect(res.headers.get('access-control-allow-methods')).toMatch(/POST/);
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toMatch(/authorization/);
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toMatch(/content-type/);
    expect(Number(res.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    expect(res.headers.get('vary')).toMatch(/Origin/);
  });

  it('gives one identical 404 for an unknown org, an unknown KB, a malformed KB id and another org’s KB', async () => {
    const cases = [
      await w.session('no-such-org', acme.kbId),
      await w.session(acme.slug, 'kb_doesnotexist'),
      await w.session(acme.slug, 'not-a-kb-id'),
      await w.session(acme.slug, other.kbId),
    ];
    for (const res of cases) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual(cases[0]!.body);
      expect(res.headers.get('access-control-allow-origin')).toBe(SHOP);
    }
    expect(cases[0]!.body.error.code).toBe('not_found');
  });

  it('refuses a request without an Origin header (not a browser)', async () => {
    const res = await widgetClient(t.app, null).session(acme.slug, acme.kbId);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
  });

  it('validates the body strictly', async () => {
    expect((await w.post('session', { org: acme.slug })).status).toBe(400);
    expect((await w.post('session', { org: acme.slug, kb: acme.kbId, api_key: 'x' })).status).toBe(400);
    const notJson = await t.app.fetch(
      new Request('http://groundwork.test/api/widget/session', { method: 'POST', headers: { origin: SHOP, 'content-type': 'text/plain' }, body: 'hi' }),
    );
    expect(notJson.status).toBe(415);
    const broken = await t.app.fetch(
      new Request('http://groundwork.test/api/widget/session', { method: 'POST', headers: { origin: SHOP, 'content-type': 'application/json' }, body: '{' }),
    );
    expect(broken.status).toBe(400);
  });

  it('refuses a KB whose widget is switched off (GraphQL), and serves it again once switched on (tRPC)', async () => {
    const gql = graphqlClient(t.app, acme.apiKey);
    const off = await gql(`mutation($id: ID!) { updateKnowledgeBase(input: { id: $id, widgetEnabled: false }) { widgetEnabled } }`, { id: acme.kbId });
    expect(off.body.data.updateKnowledgeBase.widgetEnabled).toBe(false);
    const refused = await w.session(acme.slug, acme.kbId);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'forbidden', message: expect.stringMatching(/turned off/) });
    expect(refused.headers.get('access-control-allow-origin')).toBe(SHOP);

    const on = await trpcClient(t.app, acme.apiKey).mutation('kbs.update', { id: acme.kbId, widget_enabled: true });
    expect(on.body.result.data.kb.widget_enabled).toBe(true);
    expect((await w.session(acme.slug, acme.kbId)).status).toBe(200);
  });

  it('honours the organisation’s allowed origins; a refused origin learns nothing about KBs', async () => {
    const gql = graphqlClient(t.app, acme.apiKey);
    const set = await gql(`mutation { updateOrganizationSettings(input: { allowedOrigins: ["https://Shop.Example.com/"] }) { allowedOrigins } }`);
    expect(set.body.data.updateOrganizationSettings.allowedOrigins).toEqual([SHOP]);
    try {
      expect((await w.session(acme.slug, acme.kbId)).status).toBe(200);
      const evil = widgetClient(t.app, 'https://evil.example');
      for (const kb of [acme.kbId, 'kb_doesnotexist']) {
        const res = await evil.session(acme.slug, kb);
        expect(res.status).toBe(403);
        expect(res.body.error.message).toMatch(/https:\/\/evil\.example\) is not allowed/);
        expect(res.headers.get('access-control-allow-origin')).toBe('https://evil.example');
      }
      // Sandboxed frames send "Origin: null": only an empty list lets them in.
      expect((await widgetClient(t.app, 'null').session(acme.slug, acme.kbId)).status).toBe(403);
    } finally {
      await gql(`mutation { updateOrganizationSettings(input: { allowedOrigins: [] }) { allowedOrigins } }`);
    }
    expect((await widgetClient(t.app, 'null').session(acme.slug, acme.kbId)).status).toBe(200);
  });

  it('says voice is available only on Starter and above with voice switched on', async () => {
    const starter = await createWidgetOrg(t, { plan: 'starter' });
    expect((await w.session(starter.slug, starter.kbId)).body.voice).toEqual({ available: false, reason: expect.stringMatching(/switched off/) });
    const on = await trpcClient(t.app, starter.apiKey).mutation('org.updateSettings', { voice_enabled: true });
    expect(on.body.result.data.settings).toMatchObject({ voice_enabled: true, voice_available: true });
    expect((await w.session(starter.slug, starter.kbId)).body.voice).toEqual({ available: true, reason: null });

    // A later downgrade turns voice off without anyone touching the setting.
    await t.db.updateTable('organizations').set({ plan: 'free' }).where('id', '=', starter.orgId as OrgId).execute();
    expect((await w.session(starter.slug, starter.kbId)).body.voice).toEqual({ available: false, reason: expect.stringMatching(/Starter plan/) });
  });
});

describe('POST /api/widget/chat', () => {
  it('streams the same SSE events as /api/rag/chat, with citations trimmed to what the widget shows', async () => {
    const token = await w.token(acme.slug, acme.kbId);
    const res = await w.chat(token, { message: 'How long can the Zephyr-9 fly on one charge?' });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('access-control-allow-origin')).toBe(SHOP);
    const names = res.events.map((e) => e.event);
    expect(names[0]).toBe('session');
    expect(names[1]).toBe('citations');
    expect(names.at(-1)).toBe('done');
    expect(names.filter((n) => n === 'delta').length).toBeGreaterThan(3);

    const done = res.events.at(-1)!.data;
    expect(done.answer).toMatch(/47 minutes/);
    expect(done.session_id).toMatch(/^sess_/);
    expect(res.events.filter((e) => e.event === 'delta').map((e) => e.data.text).join('').trim()).toBe(done.answer);
    expect(done.citations.length).toBeGreaterThan(0);
    for (const c of [...done.citations, ...res.events[1]!.data.citations]) {
      expect(Object.keys(c).sort()).toEqual(['filename', 'heading', 'marker', 'page', 'snippet', 'source_type', 'title', 'url', 'used']);
    }
    expect(done.citations[0]).toMatchObject({ filename: 'zephyr.md', snippet: expect.stringMatching(/47 minutes/) });
    // Nothing that addresses the knowledge base itself leaves through the widget.
    expect(res.text).not.toMatch(/doc_[0-9A-Za-z]|chk_[0-9A-Za-z]|"score"/);
  });

  it('keeps memory through session_id, like the keyed chat', async () => {
    const token = await w.token(acme.slug, acme.kbId);
    const first = await w.chat(token, { message: 'Who makes the Zephyr-9?' });
    const sessionId = first.events.at(-1)!.data.session_id;
    expect(first.events.at(-1)!.data.answer).toMatch(/Northwind Aerial/);
    const second = await w.chat(token, { message: 'How long can it fly?', session_id: sessionId });
    expect(second.events[0]!.data).toMatchObject({ session_id: sessionId, query: expect.stringMatching(/Zephyr-9/) });
    expect(second.events.at(-1)!.data).toMatchObject({ session_id: sessionId, answer: expect.stringMatching(/47 minutes/) });

    // The conversation can be read back by the widget that holds it, trimmed the same way.
    const history = await w.post('history', { session_id: sessionId }, token);
    expect(history.status).toBe(200);
    const body = (await history.json()) as any;
    expect(body.session_id).toBe(sessionId);
    expect(body.messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(body.messages[3].content).toMatch(/47 minutes/);
    expect(Object.keys(body.messages[3].citations[0]).sort()).toEqual(['filename', 'heading', 'marker', 'page', 'snippet', 'source_type', 'title', 'url', 'used']);
    // An answer's own message id is its rating handle (POST /api/widget/feedback); nothing else internal.
    expect(body.messages.filter((m: any) => m.message_id).map((m: any) => m.role)).toEqual(['assistant', 'assistant']);
    expect(JSON.stringify(body.messages.map(({ message_id, ...m }: any) => m))).not.toMatch(/doc_|chk_|msg_/);
  });

  it('refuses missing, malformed, forged, tampered and expired tokens alike (401)', async () => {
    const good = await w.token(acme.slug, acme.kbId);
    const [payload, signature] = good.split('.') as [string, string];
    const claims = decodeTokenPayload(good);
    const tampered = `${Buffer.from(JSON.stringify({ ...claims, kb: other.kbId, org: other.orgId })).toString('base64url')}.${signature}`;
    const forged = signWidgetToken(randomBytes(32), { org: acme.orgId as OrgId, kb: acme.kbId as KbId, origin: SHOP }).token;
    const key = await widgetTokenKey(t.deps);
    const expired = signWidgetToken(key, { org: acme.orgId as OrgId, kb: acme.kbId as KbId, origin: SHOP }, Date.now() - 31 * 60_000).token;
    const still = signWidgetToken(key, { org: acme.orgId as OrgId, kb: acme.kbId as KbId, origin: SHOP }, Date.now() - 29 * 60_000).token;

    for (const [name, token] of [
      ['none', undefined],
      ['garbage', 'not-a-token'],
      ['no signature', payload],
      ['forged', forged],
      ['tampered', tampered],
      ['expired', expired],
    ] as const) {
      const res = await w.chat(token, { message: 'How long can it fly?' });
      expect(res.status, name).toBe(401);
      expect(res.json.error.code, name).toBe('unauthorized');
      expect(res.headers.get('access-control-allow-origin'), name).toBe(SHOP);
    }
    expect((await w.chat(still, { message: 'How long can the Zephyr-9 fly?' })).status).toBe(200);
  });

  it('refuses a token used from another origin (403)', async () => {
    const token = await w.token(acme.slug, acme.kbId);
    const res = await widgetClient(t.app, 'https://evil.example').chat(token, { message: 'How long can it fly?' });
    expect(res.status).toBe(403);
    expect(res.json.error.message).toMatch(/another website/);
    expect((await widgetClient(t.app, null).chat(token, { message: 'hi' })).status).toBe(403);
  });

  it('treats a session of another organisation or of another KB as not found', async () => {
    const mine = await w.chat(await w.token(acme.slug, acme.kbId), { message: 'Who makes the Zephyr-9?' });
    const sessionId = mine.events.at(-1)!.data.session_id;

    const otherToken = await w.token(other.slug, other.kbId);
    const stolen = await w.chat(otherToken, { message: 'How long can it fly?', session_id: sessionId });
    expect(stolen.status).toBe(404);
    expect((await w.post('history', { session_id: sessionId }, otherToken)).status).toBe(404);

    const secondKb = (await restClient(t.app, acme.apiKey).post('/api/kbs', { name: 'Second' })).body.kb.id;
    const sameOrgOtherKb = await w.chat(await w.token(acme.slug, secondKb), { message: 'How long can it fly?', session_id: sessionId });
    expect(sameOrgOtherKb.status).toBe(404);
    await restClient(t.app, acme.apiKey).delete(`/api/kbs/${secondKb}`);
  });

  it('re-checks at every message: switching the widget off or tightening the allowlist applies at once', async () => {
    const token = await w.token(acme.slug, acme.kbId);
    await trpcClient(t.app, acme.apiKey).mutation('kbs.update', { id: acme.kbId, widget_enabled: false });
    expect((await w.chat(token, { message: 'How long can it fly?' })).status).toBe(403);
    await trpcClient(t.app, acme.apiKey).mutation('kbs.update', { id: acme.kbId, widget_enabled: true });
    expect((await w.chat(token, { message: 'How long can the Zephyr-9 fly?' })).status).toBe(200);

    await trpcClient(t.app, acme.apiKey).mutation('org.updateSettings', { allowed_origins: ['https://other-shop.example.com'] });
    try {
      const res = await w.chat(token, { message: 'How long can it fly?' });
      expect(res.status).toBe(403);
      expect(res.json.error.message).toMatch(/not allowed/);
    } finally {
      await trpcClient(t.app, acme.apiKey).mutation('org.updateSettings', { allowed_origins: [] });
    }
  });

  it('caps message length and accepts no other fields (no choice of KB or top_k)', async () => {
    const token = await w.token(acme.slug, acme.kbId);
    const long = await w.chat(token, { message: 'x'.repeat(1001) });
    expect(long.status).toBe(400);
    expect(long.json.error).toMatchObject({ code: 'invalid_input', field: 'message' });
    expect((await w.chat(token, { message: '   ' })).status).toBe(400);
    for (const extra of [{ kb_id: other.kbId }, { top_k: 50 }, { stream: false }]) {
      const res = await w.chat(token, { message: 'How long can it fly?', ...extra });
      expect(res.status).toBe(400);
      expect(res.json.error.message).toMatch(/Unknown field/);
    }
    const huge = await w.post('chat', { message: 'x'.repeat(20_000) }, token);
    expect(huge.status).toBe(413);
  });

  it('exposes no listings or documents, and widget tokens open nothing else', async () => {
    const token = await w.token(acme.slug, acme.kbId);
    for (const path of ['kbs', 'documents', `kbs/${acme.kbId}/documents`, 'search']) {
      const res = await w.post(path, {}, token);
      expect(res.status, path).toBe(404);
    }
    const get = await t.app.fetch(new Request('http://groundwork.test/api/widget/session', { headers: { origin: SHOP } }));
    expect(get.status).toBe(404);
    for (const headers of [{ authorization: `Bearer ${token}` }, { 'x-api-key': token }] as Array<Record<string, string>>) {
      const res = await t.app.fetch(new Request(`http://groundwork.test/api/kbs/${acme.kbId}/documents`, { headers }));
      expect(res.status).toBe(401);
      const gql = await t.app.fetch(
        new Request('http://groundwork.test/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ query: '{ knowledgeBases { id } }' }),
        }),
      );
      expect(((await gql.json()) as any).errors[0].extensions.app_code).toBe('unauthorized');
    }
  });
});

describe('rate limits', () => {
  it('limits chat messages per widget session with 429, Retry-After and CORS-exposed headers', async () => {
    const app = createApp({ ...t.deps, config: testConfig({ WIDGET_SESSION_RATE_LIMIT_PER_MINUTE: '2' }) });
    const client = widgetClient(app, SHOP);
    const token = await client.token(acme.slug, acme.kbId);
    expect((await client.chat(token, { message: 'How long can the Zephyr-9 fly?' })).status).toBe(200);
    expect((await client.chat(token, { message: 'How long can the Zephyr-9 fly?' })).status).toBe(200);
    const limited = await client.chat(token, { message: 'How long can the Zephyr-9 fly?' });
    expect(limited.status).toBe(429);
    expect(limited.json.error.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(limited.headers.get('access-control-expose-headers')).toMatch(/Retry-After/i);
    // Per session: another widget session still has its own budget.
    expect((await client.chat(await client.token(acme.slug, acme.kbId), { message: 'Who makes the Zephyr-9?' })).status).toBe(200);
  });

  it('limits every request per client IP (behind a trusted proxy: the last X-Forwarded-For entry)', async () => {
    const app = createApp({ ...t.deps, config: testConfig({ WIDGET_RATE_LIMIT_PER_MINUTE: '3', TRUST_PROXY: 'true' }) });
    const from = (xff: string) => widgetClient(app, SHOP, { 'x-forwarded-for': xff });
    for (let i = 0; i < 3; i++) expect((await from('203.0.113.7').session(acme.slug, acme.kbId)).status).toBe(200);
    const limited = await from('203.0.113.7').session(acme.slug, acme.kbId);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    // A client cannot escape by prepending addresses; the proxy's entry is what counts.
    expect((await from('198.51.100.1, 203.0.113.7').session(acme.slug, acme.kbId)).status).toBe(429);
    expect((await from('198.51.100.1').session(acme.slug, acme.kbId)).status).toBe(200);
  });

  it('without a trusted proxy, counts the socket address and ignores X-Forwarded-For', async () => {
    const served = await serveApp(createApp({ ...t.deps, config: testConfig({ WIDGET_RATE_LIMIT_PER_MINUTE: '2' }) }));
    try {
      const session = (xff: string) =>
        fetch(`${served.url}/api/widget/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: SHOP, 'x-forwarded-for': xff },
          body: JSON.stringify({ org: acme.slug, kb: acme.kbId }),
        });
      expect((await session('198.51.100.1')).status).toBe(200);
      expect((await session('198.51.100.2')).status).toBe(200);
      const limited = await session('198.51.100.3');
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await served.close();
    }
  });

  it('groups IPv6 clients by /64 and unwraps IPv4-mapped addresses', () => {
    expect(rateLimitKeyForIp('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(rateLimitKeyForIp('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(rateLimitKeyForIp('2001:0db8:0001:0002:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(rateLimitKeyForIp('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(rateLimitKeyForIp('::1')).toBe('0:0:0:0::/64');
  });
});

describe('token signing key', () => {
  it('is generated once and shared through the database by every process; WIDGET_TOKEN_SECRET replaces it', async () => {
    const token = await w.token(acme.slug, acme.kbId);
    const rows = await t.db.selectFrom('app_secrets').selectAll().execute();
    expect(rows.map((r) => r.name)).toEqual(['widget_token_secret']);

    // A second "process" on the same database (fresh deps object, nothing memoised) accepts it.
    const secondProcess = createApp({ ...t.deps, db: t.db.withSchema('public') as typeof t.db, config: testConfig() });
    expect((await widgetClient(secondProcess, SHOP).chat(token, { message: 'How long can the Zephyr-9 fly?' })).status).toBe(200);

    const configured = createApp({ ...t.deps, config: testConfig({ WIDGET_TOKEN_SECRET: randomBytes(32).toString('hex') }) });
    const client = widgetClient(configured, SHOP);
    expect((await client.chat(token, { message: 'How long can it fly?' })).status).toBe(401);
    expect((await client.chat(await client.token(acme.slug, acme.kbId), { message: 'How long can the Zephyr-9 fly?' })).status).toBe(200);
  });
});
