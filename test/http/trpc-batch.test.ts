/**
 * A tRPC batch holds at most MAX_BATCH_CALLS calls (src/trpc/handler.ts): a bigger one is refused
 * at once with a JSON 400 in tRPC's error shape, before any call runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BATCH_CALLS } from '../../src/trpc/handler';
import { createOrgWithKey } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

let t: TestApp;
let apiKey: string;
beforeAll(async () => {
  t = await createTestApp();
  ({ api_key: apiKey } = await createOrgWithKey(t.deps));
});
afterAll(() => t?.close());

const batch = (calls: number) =>
  t.app.fetch(
    new Request(`http://groundwork.test/trpc/${Array.from({ length: calls }, () => 'kbs.list').join(',')}?batch=1&input=${encodeURIComponent('{}')}`, {
      headers: { 'x-api-key': apiKey },
    }),
  );

describe('tRPC batches', () => {
  it(`answers a batch of ${MAX_BATCH_CALLS} calls, each call`, async () => {
    const res = await batch(MAX_BATCH_CALLS);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Array<{ result?: { data: unknown } }>;
    expect(body).toHaveLength(MAX_BATCH_CALLS);
    expect(body.every((r) => r.result !== undefined)).toBe(true);
  });

  it('refuses a bigger batch with a JSON 400 that says how to split it', async () => {
    const res = await batch(50);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string; data: { app_code: string; httpStatus: number } } };
    expect(body.error.data).toMatchObject({ app_code: 'invalid_input', httpStatus: 400 });
    expect(body.error.message).toContain(`at most ${MAX_BATCH_CALLS} calls; this one holds 50`);
  });
});
