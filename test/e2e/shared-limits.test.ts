/**
 * Limits hold across web processes on PostgreSQL: two `npm start` processes on one database share
 * the per-key API limit, the widget's per-IP and per-session limits and the plan's concurrent voice
 * sessions, instead of each allowing the full amount.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../db/open-database';
import { createOrg } from '../../src/services/orgs/create-org';
import { startFakeRealtime, type FakeRealtime } from '../fakes/realtime-server';
import { realtimeEnv, SHOP, VoiceClient } from '../realtime/voice-fixture';
import { startServer, type StartedServer } from '../helpers/server-process';
import { createTestDatabase } from '../helpers/test-database';

// Behind a load balancer, as two web processes would be: the widget's per-IP limit reads X-Forwarded-For.
const LIMITS = { RATE_LIMIT_PER_MINUTE: '6', WIDGET_RATE_LIMIT_PER_MINUTE: '5', WIDGET_SESSION_RATE_LIMIT_PER_MINUTE: '2', TRUST_PROXY: 'true' };
let database: DatabaseHandle;
let fake: FakeRealtime;
let webs: StartedServer[] = [];
let key: string;

beforeAll(async () => {
  database = await createTestDatabase('postgres');
  fake = await startFakeRealtime({ script: { pace: 0.05 } });
  ({ api_key: key } = await createOrg({ db: database.db }, { name: 'Acme', slug: 'acme', plan: 'pro' }));
  const env = { DATABASE_URL: database.connectionString, WORKER_INLINE: 'false', ...LIMITS, ...realtimeEnv(fake) };
  webs = await Promise.all([startServer(env), startServer(env)]);
}, 180_000);
afterAll(async () => {
  await Promise.all(webs.map((w) => w.stop()));
  await fake?.close();
  await database?.close();
});

/** Alternates between the two web processes; the statuses in order. */
async function alternate(n: number, request: (base: string) => Promise<Response>) {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await request(webs[i % 2]!.url);
    statuses.push(res.status);
    await res.arrayBuffer();
  }
  return statuses;
}

describe('two web processes on one PostgreSQL', () => {
  it('share the per-key API limit', async () => {
    const statuses = await alternate(8, (base) => fetch(`${base}/api/kbs`, { headers: { 'x-api-key': key } }));
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
  });

  it("share the widget's per-IP and per-session limits", async () => {
    // The per-key budget above is spent; this key is fresh.
    const org = await createOrg({ db: database.db }, { name: 'Beta', slug: 'beta', plan: 'pro' });
    const kb = (await (await fetch(`${webs[0]!.url}/api/kbs`, { method: 'POST', headers: { 'x-api-key': org.api_key, 'content-type': 'application/json' }, body: '{"name":"Help"}' })).json()) as { kb: { id: string } };
    const widget = (base: string, path: string, body: unknown, token?: string) =>
      fetch(`${base}/api/widget/${path}`, {
        method: 'POST',
        headers: { origin: 'https://shop.example', 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });

    // A token minted by one process is accepted by the other; two messages per session per minute in all.
    const { token } = (await (await widget(webs[0]!.url, 'session', { org: 'beta', kb: kb.kb.id })).json()) as { token: string };
    const perSession = await alternate(3, (base) => widget(base, 'chat', { message: 'Hello?' }, token));
    expect(perSession).toEqual([200, 200, 429]);

    // Five widget requests per IP per minute in all: the session and three chats above were four.
    const perIp = await alternate(2, (base) => widget(base, 'session', { org: 'beta', kb: kb.kb.id }));
    expect(perIp).toEqual([200, 429]);
  });

  it("share the plan's concurrent voice sessions (Starter: 5), and a slot freed on one process serves the other", async () => {
    const org = await createOrg({ db: database.db }, { name: 'Gamma', slug: 'gamma', plan: 'starter' });
    const api = (path: string, body: unknown) =>
      fetch(`${webs[0]!.url}${path}`, { method: 'POST', headers: { 'x-api-key': org.api_key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const kb = (await (await api('/api/kbs', { name: 'Help' })).json()) as { kb: { id: string } };
    const settings = await api('/graphql', { query: 'mutation { updateOrganizationSettings(input: {voiceEnabled: true}) { voiceEnabled } }' });
    expect(await settings.json()).toEqual({ data: { updateOrganizationSettings: { voiceEnabled: true } } });
    // From another visitor's address: the per-IP budget of 127.0.0.1 went to the test above.
    const session = await fetch(`${webs[1]!.url}/api/widget/session`, { method: 'POST', headers: { origin: SHOP, 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.7' }, body: JSON.stringify({ org: 'gamma', kb: kb.kb.id }) });
    const { token } = (await session.json()) as { token: string };
    const voiceOn = (i: number) => VoiceClient.connect(`${webs[i]!.url.replace('http', 'ws')}/api/widget/voice`, token);

    // Three on one process and two on the other: five in all.
    const open = [0, 0, 0, 1, 1].map(voiceOn);
    await Promise.all(open.map((c) => c.type('ready')));
    for (const i of [0, 1]) {
      const refused = voiceOn(i);
      expect(await refused.type('error')).toMatchObject({ code: 'too_many_voice_sessions' });
      expect((await refused.closed).code).toBe(4429);
    }
    // One ends on the first process: the second process can now open one, and only one.
    open[0]!.json({ type: 'stop' });
    await open[0]!.closed;
    const again = voiceOn(1);
    await again.type('ready');
    const over = voiceOn(0);
    expect((await over.closed).code).toBe(4429);
    for (const c of [...open.slice(1), again]) c.close();
    await Promise.all([...open.slice(1), again].map((c) => c.closed));
  });
});
