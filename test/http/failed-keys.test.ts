/**
 * Refused keys are throttled per client address and per key prefix on REST, tRPC, GraphQL and the
 * widget (issue 44: 621 random keys in 15 s on REST, each a database lookup, no 429). The app's
 * clock is the test's: the window ends when the test says so.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app';
import { createOrgWithKey } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

const PER_ADDRESS = 5;
const PER_PREFIX = 3;
const WINDOW_S = 60;

let t: TestApp;
let app: App;
let clock = Date.UTC(2026, 11, 2, 8, 0, 0);
let goodKey: string;
let otherKey: string;

beforeAll(async () => {
  t = await createTestApp({
    env: { FAILED_KEYS_PER_ADDRESS: String(PER_ADDRESS), FAILED_KEYS_PER_PREFIX: String(PER_PREFIX), FAILED_KEYS_WINDOW_SECONDS: String(WINDOW_S) },
  });
  app = createApp({ ...t.deps, now: () => clock });
  goodKey = (await createOrgWithKey(t.deps)).api_key;
  otherKey = (await createOrgWithKey(t.deps)).api_key;
});
afterAll(() => t?.close());

const randomKey = () => `gw_${randomBytes(30).toString('base64').replace(/[^0-9A-Za-z]/g, '').padEnd(40, 'x').slice(0, 40)}`;
/** The node server's env: the socket address the app keys limits by (no proxy header involved). */
const from = (address: string) => ({ incoming: { socket: { remoteAddress: address } } });

const rest = (key: string, address: string) => app.fetch(new Request('http://groundwork.test/api/kbs', { headers: { 'x-api-key': key } }), from(address));
const trpc = (key: string, address: string) => app.fetch(new Request('http://groundwork.test/trpc/kbs.list', { headers: { 'x-api-key': key } }), from(address));
const graphql = (key: string, address: string) =>
  app.fetch(
    new Request('http://groundwork.test/graphql', {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ knowledgeBases { id } }' }),
    }),
    from(address),
  );
const widget = (token: string, address: string) =>
  app.fetch(
    new Request('http://groundwork.test/api/widget/history', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, origin: 'https://shop.example', 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: 'sess_x' }),
    }),
    from(address),
  );

describe.each([
  ['REST', rest, '10.0.1.1', '10.0.1.2'],
  ['tRPC', trpc, '10.0.2.1', '10.0.2.2'],
  ['GraphQL', graphql, '10.0.3.1', '10.0.3.2'],
] as const)('%s', (_name, call, guesser, holder) => {
  it('answers 429 with retry-after once an address has presented too many wrong keys, and a right key elsewhere still works', async () => {
    for (let i = 0; i < PER_ADDRESS; i++) expect((await call(randomKey(), guesser)).status).toBe(401);
    const refused = await call(randomKey(), guesser);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(WINDOW_S);
    expect(JSON.stringify(await refused.json())).toMatch(/rate_limited|RATE_LIMITED|TOO_MANY_REQUESTS/);
    // A right key from another address is not slowed, however often it is used.
    for (let i = 0; i < PER_ADDRESS * 2; i++) expect((await call(goodKey, holder)).status).toBe(200);
  });
});

describe('windows and prefixes', () => {
  it('lets the address try again once its window has passed', async () => {
    const address = '10.0.4.1';
    for (let i = 0; i < PER_ADDRESS; i++) await rest(randomKey(), address);
    const refused = await rest(goodKey, address);
    expect(refused.status).toBe(429);
    clock += Number(refused.headers.get('retry-after')) * 1000;
    expect((await rest(goodKey, address)).status).toBe(200);
  });

  it('keeps a key that already worked from an address working there once that address is throttled', async () => {
    // One office behind one address: a colleague's integration works, then someone guesses keys.
    const office = '10.0.7.1';
    expect((await rest(goodKey, office)).status).toBe(200);
    for (let i = 0; i < PER_ADDRESS; i++) expect((await rest(randomKey(), office)).status).toBe(401);
    expect((await rest(randomKey(), office)).status).toBe(429);
    for (const call of [rest, trpc, graphql]) expect((await call(goodKey, office)).status).toBe(200);
    // A key first presented after the throttle began is refused like a guess, right or not, and so
    // is a guess that shares the working key's prefix.
    expect((await rest(otherKey, office)).status).toBe(429);
    expect((await rest(`${goodKey.slice(0, 12)}${randomKey().slice(12)}`, office)).status).toBe(429);
  });

  it('refuses guesses at one prefix spread over many addresses, but not the key holder', async () => {
    const prefix = otherKey.slice(0, 12);
    const guess = () => `${prefix}${randomKey().slice(12)}`;
    for (let i = 0; i < PER_PREFIX; i++) expect((await rest(guess(), `10.0.5.${i}`)).status).toBe(401);
    // A fresh address gets its one lookup; once it has failed, the prefix's ceiling applies to it.
    expect((await rest(guess(), '10.0.5.100')).status).toBe(401);
    const refused = await rest(guess(), '10.0.5.100');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    // The holder of the real key, from an address that never failed, is not locked out.
    expect((await rest(otherKey, '10.0.5.200')).status).toBe(200);
  });

  it('throttles forged widget tokens per address too', async () => {
    const address = '10.0.6.1';
    for (let i = 0; i < PER_ADDRESS; i++) expect((await widget(`forged.${randomBytes(32).toString('base64url')}`, address)).status).toBe(401);
    const refused = await widget(`forged.${randomBytes(32).toString('base64url')}`, address);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await widget(`forged.${randomBytes(32).toString('base64url')}`, '10.0.6.2')).status).toBe(401);
  });
});
