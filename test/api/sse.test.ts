/**
 * SSE over a real socket: event framing and order, heartbeats while the model is slow, and the
 * model call aborted when the client disconnects.
 */
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server';

let fake: FakeOpenAI;
let t: TestApp;
let server: ServerType;
let base: string;
let apiKey: string;
let kbId: string;

type SseEvent = { event: string; data: any } | { comment: string };

/** Reads an SSE body into events, keeping comments (heartbeats) too. */
async function readEvents(res: Response, stopAfter?: (e: SseEvent[]) => boolean): Promise<SseEvent[]> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: SseEvent[] = [];
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let idx: number;
    while ((idx = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, idx);
      buffer = buffer.slice(idx + 2);
      if (block.startsWith(':')) events.push({ comment: block.slice(1).trim() });
      else {
        const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
        const data = block.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
        events.push({ event, data: JSON.parse(data) });
      }
      if (stopAfter?.(events)) {
        await reader.cancel();
        return events;
      }
    }
  }
  return events;
}

const post = (path: string, body: unknown, signal?: AbortSignal) =>
  fetch(`${base}${path}`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body), signal });

beforeAll(async () => {
  fake = await startFakeOpenAI({ reply: () => 'The Zephyr-9 flies for 47 minutes [1].' });
  t = await createTestApp({ env: { OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.url, SSE_HEARTBEAT_MS: '150' } });
  apiKey = (await createOrgWithKey(t.deps)).api_key;
  kbId = (await restClient(t.app, apiKey).post('/api/kbs', { name: 'Drones' })).body.kb.id;
  await uploadFile(t.app, apiKey, kbId, { name: 'zephyr.md', bytes: '# Zephyr-9\n\nThe Zephyr-9 can fly for 47 minutes on one charge.' });
  await runQueuedJobs(t);
  server = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await t?.close();
  await fake?.close();
});

describe('SSE', () => {
  it('streams citations, deltas and done with the right headers', async () => {
    const res = await post('/api/rag/search', { kb_id: kbId, query: 'How long can the Zephyr-9 fly?', stream: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('cache-control')).toMatch(/no-cache/);
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    const events = (await readEvents(res)).filter((e): e is { event: string; data: any } => 'event' in e);
    expect(events[0]!.event).toBe('citations');
    expect(events[0]!.data.citations[0]).toMatchObject({ marker: 1, filename: 'zephyr.md' });
    const deltas = events.filter((e) => e.event === 'delta');
    expect(deltas.length).toBeGreaterThan(1);
    const done = events.at(-1)!;
    expect(done.event).toBe('done');
    expect(deltas.map((d) => d.data.text).join('')).toBe(done.data.answer);
    expect(done.data).toMatchObject({ answer: 'The Zephyr-9 flies for 47 minutes [1].', citations: [expect.objectContaining({ marker: 1 })] });
  });

  it('chat streams a session event first and ends with the session id', async () => {
    const res = await post('/api/rag/chat', { kb_id: kbId, message: 'How long can the Zephyr-9 fly?', stream: true });
    const events = (await readEvents(res)).filter((e): e is { event: string; data: any } => 'event' in e);
    expect(events.map((e) => e.event)[0]).toBe('session');
    expect(events[0]!.data.session_id).toMatch(/^sess_/);
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { session_id: events[0]!.data.session_id } });
  });

  it('sends keep-alive comments while the model is slow', async () => {
    fake.setReply(async () => {
      await new Promise((r) => setTimeout(r, 700));
      return 'Slow answer [1].';
    });
    const res = await post('/api/rag/search', { kb_id: kbId, query: 'How long can the Zephyr-9 fly?', stream: true });
    const events = await readEvents(res);
    const firstDelta = events.findIndex((e) => 'event' in e && e.event === 'delta');
    const heartbeats = events.slice(0, firstDelta).filter((e) => 'comment' in e && e.comment === 'keep-alive');
    expect(heartbeats.length).toBeGreaterThanOrEqual(2);
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { answer: 'Slow answer [1].' } });
  });

  it('aborts generation when the client disconnects', async () => {
    const slow = await startFakeOpenAI({ reply: () => Array.from({ length: 200 }, (_, i) => `word${i}`).join(' '), chunkDelayMs: 30 });
    const t2 = await createTestApp({ env: { OPENAI_API_KEY: slow.apiKey, OPENAI_BASE_URL: slow.url } });
    const s2 = serve({ fetch: t2.app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((r) => s2.once('listening', r));
    try {
      const key = (await createOrgWithKey(t2.deps)).api_key;
      const kb = (await restClient(t2.app, key).post('/api/kbs', { name: 'x' })).body.kb.id;
      await uploadFile(t2.app, key, kb, { name: 'a.md', bytes: '# A\n\nThe answer is forty two words long.' });
      await runQueuedJobs(t2);
      const controller = new AbortController();
      const res = await fetch(`http://127.0.0.1:${(s2.address() as { port: number }).port}/api/rag/search`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ kb_id: kb, query: 'What is the answer?', stream: true }),
        signal: controller.signal,
      });
      const seen = await readEvents(res, (ev) => ev.filter((e) => 'event' in e && e.event === 'delta').length >= 3);
      expect(seen.some((e) => 'event' in e && e.event === 'delta')).toBe(true);
      controller.abort();
      const upstream = slow.requests.find((r) => r.endpoint === 'chat.completions')!;
      // Returns as soon as it holds; the 20 s is for a loaded machine (the reply would take 6 s).
      await expect.poll(() => upstream.clientAborted, { timeout: 20_000 }).toBe(true);
    } finally {
      await new Promise((r) => s2.close(r));
      await t2.close();
      await slow.close();
    }
  });
});
