/** GET /metrics: Prometheus text behind a bearer token, with route patterns, retrieval, jobs, queue and pool. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { observePool, observeQueue } from '../../src/metrics';
import { queueStats } from '../../src/services/workers/queue-stats';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, testConfig, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';

const TOKEN = 'metrics-token-0123456789';
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { METRICS_TOKEN: TOKEN } });
  observePool(t.database.pool, t.database.mode);
  observeQueue(() => queueStats(t.db, { heartbeats: t.database.mode === 'postgres' }));
});
afterAll(() => t.close());

const scrape = (authorization?: string) => t.app.fetch(new Request('http://groundwork.test/metrics', { headers: authorization ? { authorization } : {} }));

describe('GET /metrics', () => {
  it('does not exist without METRICS_TOKEN, and refuses a missing or wrong token', async () => {
    const off = createApp({ ...t.deps, config: testConfig() });
    const res = await off.fetch(new Request('http://groundwork.test/metrics'));
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('not_found');
    for (const auth of [undefined, 'Bearer wrong-token-0123456789', TOKEN]) {
      const denied = await scrape(auth);
      expect(denied.status).toBe(401);
      expect((await denied.json()).error.code).toBe('unauthorized');
    }
  });

  it('reports requests by route pattern and status, retrieval latency, jobs by outcome, queue and pool', async () => {
    const { api_key: apiKey } = await createOrgWithKey(t.deps, { plan: 'pro' });
    const api = restClient(t.app, apiKey);
    const kb = (await api.post('/api/kbs', { name: 'Metrics' })).body.kb;
    await api.get(`/api/kbs/${kb.id}`);
    await api.get('/api/kbs/kb_doesnotexist');
    await uploadFile(t.app, apiKey, kb.id, { name: 'a.txt', bytes: 'The Zephyr-9 flies for 47 minutes on one battery.' });

    const queued = await (await scrape(`Bearer ${TOKEN}`)).text();
    expect(queued).toMatch(/^groundwork_jobs_queued 1$/m);
    expect(queued).toMatch(/^groundwork_jobs_oldest_queued_age_seconds \d/m);

    await runQueuedJobs(t);
    await api.post('/api/rag/search', { kb_id: kb.id, query: 'How long does the Zephyr-9 fly?' });

    const res = await scrape(`Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toContain('groundwork_http_request_duration_seconds_count{method="GET",route="/api/kbs/:id",status="200"} 1');
    expect(text).toContain('groundwork_http_request_duration_seconds_count{method="GET",route="/api/kbs/:id",status="404"} 1');
    expect(text).not.toContain('kb_doesnotexist');
    expect(text).toMatch(/^groundwork_retrieval_duration_seconds_count [1-9]/m);
    expect(text).toContain('groundwork_ingestion_jobs_total{task="documents__ingest",outcome="ok"} 1');
    expect(text).toMatch(/^groundwork_jobs_queued 0$/m);
    expect(text).toMatch(new RegExp(`^groundwork_db_pool_connections\\{database="${t.database.mode}"\\} [1-9]`, 'm'));
    expect(text).toMatch(/^process_resident_memory_bytes \d/m);
  });
});
