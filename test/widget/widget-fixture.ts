/** A KB with a small ingested document, and helpers that call the public widget endpoints like a browser would. */
import { expect } from 'vitest';
import { createApp, type App } from '../../src/app';
import { createEmbeddingRegistry } from '../../src/ai/embedding-registry';
import type { AppDeps } from '../../src/context';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';
import { startFakeOpenAI } from '../fakes/openai-server';
import type { PlanName } from '../../db/types';

/**
 * The test app for widget tests: embeddings from the local OpenAI fake (the real OpenAI client code
 * against the real wire protocol; deterministic bag-of-words vectors), answers from the offline
 * model (real token-by-token streaming of grounded answers). Keeps widget tests independent of the
 * local embedding asset, which is not what they are about.
 */
export async function createWidgetTestApp(opts: { env?: Record<string, string> } = {}) {
  const fake = await startFakeOpenAI();
  const t = await createTestApp(opts);
  const deps: AppDeps = {
    ...t.deps,
    embeddings: createEmbeddingRegistry({
      openai: { apiKey: fake.apiKey, baseURL: fake.url, model: 'gpt-4o-mini', embeddingModel: 'text-embedding-3-small' },
    }),
  };
  return {
    ...t,
    deps,
    app: createApp(deps),
    close: async () => {
      await t.close();
      await fake.close();
    },
  };
}

import { ZEPHYR_MD } from '../fixtures/zephyr';

export { ZEPHYR_MD };

export type WidgetOrg = { slug: string; orgId: string; apiKey: string; kbId: string; kbName: string };

/** An organisation with one KB holding the Zephyr-9 document, ingested. */
export async function createWidgetOrg(t: TestApp, opts: { plan?: PlanName; kbName?: string; document?: string } = {}): Promise<WidgetOrg> {
  const created = await createOrgWithKey(t.deps, { plan: opts.plan ?? 'pro' });
  const api = restClient(t.app, created.api_key);
  const kbName = opts.kbName ?? 'Zephyr support';
  const kb = await api.post('/api/kbs', { name: kbName });
  expect(kb.status).toBe(201);
  const up = await uploadFile(t.app, created.api_key, kb.body.kb.id, { name: 'zephyr.md', bytes: opts.document ?? ZEPHYR_MD });
  expect(up.status).toBe(202);
  await runQueuedJobs(t);
  const docs = await api.get(`/api/kbs/${kb.body.kb.id}/documents`);
  expect(docs.body.documents.map((d: any) => d.status)).toEqual(['ready']);
  return { slug: created.org.slug, orgId: created.org.id, apiKey: created.api_key, kbId: kb.body.kb.id, kbName };
}

const BASE = 'http://groundwork.test';

export type SseEvent = { event: string; data: any };

export function widgetClient(app: App, origin: string | null = 'https://shop.example.com', extraHeaders: Record<string, string> = {}) {
  const headers = (token?: string) => ({
    'content-type': 'application/json',
    ...(origin ? { origin } : {}),
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...extraHeaders,
  });
  const post = (path: string, body: unknown, token?: string) =>
    app.fetch(new Request(`${BASE}/api/widget/${path}`, { method: 'POST', headers: headers(token), body: JSON.stringify(body) }));
  return {
    post,
    async session(org: string, kb: string) {
      const res = await post('session', { org, kb });
      return { status: res.status, headers: res.headers, body: (await res.json()) as any };
    },
    async token(org: string, kb: string): Promise<string> {
      const res = await post('session', { org, kb });
      const body = (await res.json()) as any;
      expect(res.status, JSON.stringify(body)).toBe(200);
      return body.token;
    },
    /** POST /chat; the SSE events parsed when it streams, the JSON error otherwise. */
    async chat(token: string | undefined, body: unknown) {
      const res = await post('chat', body, token);
      const text = await res.text();
      const events: SseEvent[] = [];
      if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        for (const block of text.split('\n\n')) {
          const event = /^event: ?(.*)$/m.exec(block)?.[1];
          const data = block
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.replace(/^data: ?/, ''))
            .join('\n');
          if (event) events.push({ event, data: JSON.parse(data) });
        }
      }
      return { status: res.status, headers: res.headers, text, events, json: events.length ? null : safeJson(text) };
    },
  };
}

function safeJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function decodeTokenPayload(token: string): any {
  return JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8'));
}
