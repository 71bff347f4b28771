/**
 * Voice concurrency counted in the database: two gateways (as two web processes would) share an
 * organisation's slots, and the slots of a process that stopped renewing (it died) expire.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { OrgId } from '../../src/ids';
import { createVoiceSlots, type VoiceSlot, type VoiceSlots } from '../../src/services/voice/voice-slots';
import { createOrgWithKey } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { waitUntil } from '../helpers/wait-for';

let t: TestApp;
const opened: VoiceSlots[] = [];
const slotsOf = (timing?: { renewMs?: number; ttlMs?: number }) => {
  const s = createVoiceSlots(t.deps, timing);
  opened.push(s);
  return s;
};
const orgId = async () => (await createOrgWithKey(t.deps, { plan: 'starter' })).org.id as OrgId;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  for (const s of opened) s.close();
  await t?.close();
});

it("shares an organisation's slots between processes, and frees one on release", async () => {
  const [a, b] = [slotsOf(), slotsOf()];
  const org = await orgId();
  const held: VoiceSlot[] = [];
  for (const s of [a, b, a]) held.push((await s.tryAcquire(org, 3))!);
  expect(held.every(Boolean)).toBe(true);
  expect(await a.tryAcquire(org, 3)).toBeNull();
  expect(await b.tryAcquire(org, 3)).toBeNull();
  // Another organisation is not affected.
  expect(await b.tryAcquire(await orgId(), 3)).not.toBeNull();

  await held[0]!.release();
  await held[0]!.release();
  expect(a.held()).toBe(1);
  const again = await b.tryAcquire(org, 3);
  expect(again).not.toBeNull();
  expect(await a.tryAcquire(org, 3)).toBeNull();
});

it('never grants more than the limit to acquirers racing from several processes', async () => {
  const org = await orgId();
  const gateways = [slotsOf(), slotsOf(), slotsOf()];
  const results = await Promise.all(Array.from({ length: 12 }, (_, i) => gateways[i % 3]!.tryAcquire(org, 5)));
  expect(results.filter(Boolean)).toHaveLength(5);
});

it('frees the slots of a process that stopped renewing them, and keeps those of one that renews', async () => {
  const org = await orgId();
  // The TTL is thirty renewals long: only an event loop stalled for 3 s would let the renewed lease lapse.
  const dead = slotsOf({ renewMs: 100, ttlMs: 3_000 });
  const alive = slotsOf({ renewMs: 100, ttlMs: 3_000 });
  const deadSlot = await dead.tryAcquire(org, 2);
  expect(deadSlot).not.toBeNull();
  expect(await alive.tryAcquire(org, 2)).not.toBeNull();
  dead.close(); // its process is gone: nothing renews its lease, nothing releases it
  const other = slotsOf();
  expect(await other.tryAcquire(org, 2)).toBeNull();
  // Expiry is judged by the database's clock, so it is the database that is asked, not a sleep.
  const expired = async () =>
    (await t.db.selectFrom('voice_slots').select('id').where('id', '=', deadSlot!.id).where('expires_at', '<=', sql<Date>`now()`).execute()).length === 1;
  await waitUntil("the dead process's lease expired", expired, { timeoutMs: 60_000 });
  // Past the TTL: the dead process's lease expired; the renewed one still counts.
  expect(await other.tryAcquire(org, 2)).not.toBeNull();
  expect(await other.tryAcquire(org, 2)).toBeNull();
});

it('a plan without voice gets no slot', async () => {
  expect(await slotsOf().tryAcquire(await orgId(), 0)).toBeNull();
});
