import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_PER_MINUTE: '5', MAX_JSON_BYTES: '2048' } });
});
afterAll(() => t?.close());

describe('REST error contract', () => {
  it('answers 415 for a non-JSON body and 413 for an oversized one', async () => {
    const { api_key } = await createOrgWithKey(t.deps);
    const api = restClient(t.app, api_key);
    const form = await api.raw('/api/kbs', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=x' });
    expect(form.status).toBe(415);
    expect((await form.json()).error.code).toBe('unsupported_media_type');

    const big = await api.post('/api/kbs', { name: 'x', description: 'y'.repeat(4000) });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('payload_too_large');
  });

  it('rate-limits per API key with 429 and Retry-After, without affecting other keys', async () => {
    const a = restClient(t.app, (await createOrgWithKey(t.deps)).api_key);
    const b = restClient(t.app, (await createOrgWithKey(t.deps)).api_key);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await a.get('/api/kbs')).status);
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    const limited = await a.get('/api/kbs');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await b.get('/api/kbs')).status).toBe(200);
  });

  it('answers unknown routes with a JSON 404', async () => {
    const { api_key } = await createOrgWithKey(t.deps);
    const res = await restClient(t.app, api_key).get('/api/nope');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('turns unexpected failures into a 500 with a request id and nothing internal', async () => {
    const broken = await createTestApp();
    const { api_key } = await createOrgWithKey(broken.deps);
    await broken.close(); // the database is gone: every query now throws
    const res = await restClient(broken.app, api_key).raw('/api/kbs', { headers: { 'x-request-id': 'req-test-1' } });
    expect(res.status).toBe(500);
    const body = await res.json();
    expect(body).toEqual({ error: { code: 'internal_error', message: 'Internal server error', request_id: 'req-test-1' } });
    expect(res.headers.get('x-request-id')).toBe('req-test-1');
  });
});

describe('health probes', () => {
  it('reports liveness and readiness without a key', async () => {
    expect((await restClient(t.app).get('/healthz')).body).toEqual({ status: 'ok' });
    expect((await restClient(t.app).get('/readyz'))).toMatchObject({ status: 200, body: { status: 'ok' } });
  });
});
