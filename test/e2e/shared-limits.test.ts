/**
 * Limits hold across web processes on PostgreSQL: two `npm start` processes on one database share
 * the per-key API limit and the widget's per-IP and per-session limits, instead of each allowing
 * the full rate.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../db/open-database';
import { createOrg } from '../../src/services/orgs/create-org';
import { startServer, type StartedServer } from '../helpers/server-process';
import { createTestDatabase } from '../helpers/test-database';

const LIMITS = { RATE_LIMIT_PER_MINUTE: '6', WIDGET_RATE_LIMIT_PER_MINUTE: '5', WIDGET_SESSION_RATE_LIMIT_PER_MINUTE: '2' };
let database: DatabaseHandle;
let webs: StartedServer[] = [];
let key: string;

beforeAll(async () => {
  database = await createTestDatabase('postgres');
  ({ api_key: key } = await createOrg({ db: database.db }, { name: 'Acme', slug: 'acme', plan: 'pro' }));
  const env = { DATABASE_URL: database.connectionString, WORKER_INLINE: 'false', ...LIMITS };
  webs = await Promise.all([startServer(env), startServer(env)]);
}, 180_000);
afterAll(async () => {
  await Promise.all(webs.map((w) => w.stop()));
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
});
