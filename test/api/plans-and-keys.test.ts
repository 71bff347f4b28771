import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/services/api-keys/create-api-key';
import { revokeApiKey } from '../../src/services/api-keys/revoke-api-key';
import { SYSTEM_ACTOR } from '../../src/services/access/actor';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { waitFor } from '../helpers/wait-for';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

describe('plan limits', () => {
  it('lets exactly one of many concurrent KB creates through on the Free plan', async () => {
    const { api_key } = await createOrgWithKey(t.deps, { plan: 'free' });
    const api = restClient(t.app, api_key);
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => api.post('/api/kbs', { name: `KB ${i}` })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 403)).toHaveLength(11);
    const refused = results.find((r) => r.status === 403)!;
    expect(refused.body.error.code).toBe('plan_limit_exceeded');
    expect(refused.body.error.message).toMatch(/free plan allows 1 knowledge base/);
    expect((await api.get('/api/kbs')).body.kbs).toHaveLength(1);
  });

  it('gives paid plans room for more', async () => {
    const api = restClient(t.app, (await createOrgWithKey(t.deps, { plan: 'starter' })).api_key);
    const results = await Promise.all(Array.from({ length: 7 }, (_, i) => api.post('/api/kbs', { name: `KB ${i}` })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
  });
});

describe('API keys', () => {
  it('stops working the moment it is revoked; other keys of the org keep working', async () => {
    const { org, api_key } = await createOrgWithKey(t.deps);
    const second = await createApiKey({ db: t.deps.db, org: org as never, actor: SYSTEM_ACTOR }, { name: 'ci' });
    expect((await restClient(t.app, api_key).get('/api/kbs')).status).toBe(200);

    const revoked = await revokeApiKey({ db: t.deps.db, org: org as never, actor: SYSTEM_ACTOR }, api_key.slice(0, 12));
    expect(revoked.prefix).toBe(api_key.slice(0, 12));
    const after = await restClient(t.app, api_key).get('/api/kbs');
    expect(after.status).toBe(401);
    expect(after.body.error.message).toMatch(/revoked/);
    expect((await restClient(t.app, second.api_key).get('/api/kbs')).status).toBe(200);
  });

  it('stores only a hash and a visible prefix, and records last use', async () => {
    const { org, api_key } = await createOrgWithKey(t.deps);
    await restClient(t.app, api_key).get('/api/kbs');
    // Last use is recorded after the response, off the request's path: waited for, not slept on.
    const rows = await waitFor(
      'last use recorded',
      () => t.db.selectFrom('api_keys').selectAll().where('org_id', '=', org.id as never).execute(),
      (rs) => rs[0]?.last_used_at != null,
    );
    expect(rows).toHaveLength(1);
    const serialized = JSON.stringify(rows);
    expect(serialized).not.toContain(api_key);
    expect(rows[0]!.prefix).toBe(api_key.slice(0, 12));
    expect(rows[0]!.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0]!.last_used_at).toBeInstanceOf(Date);
  });

  it('rejects a key that has the right prefix but the wrong secret', async () => {
    const { api_key } = await createOrgWithKey(t.deps);
    const forged = api_key.slice(0, 12) + 'A'.repeat(31);
    expect((await restClient(t.app, forged).get('/api/kbs')).status).toBe(401);
  });
});
