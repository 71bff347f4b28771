/**
 * Memory over answers, end to end through POST /api/rag/chat with the offline models: a publisher
 * named only in an answer is followed through "that publisher" and then "it", three turns, without
 * drifting to the society named after the atlas or to another press.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';
import { CATALOGUE } from '../fixtures/answer-memory';

let t: TestApp;
let api: ReturnType<typeof restClient>;
let kbId: string;

beforeAll(async () => {
  t = await createTestApp();
  const { api_key } = await createOrgWithKey(t.deps);
  api = restClient(t.app, api_key);
  kbId = (await api.post('/api/kbs', { name: 'Catalogue' })).body.kb.id;
  for (const file of CATALOGUE) expect((await uploadFile(t.app, api_key, kbId, file)).status).toBe(202);
  await runQueuedJobs(t);
});
afterAll(async () => {
  await t?.close();
});

/** One conversation; each turn returns the answer and the query retrieval ran (the SSE session event). */
function conversation() {
  let session: string | undefined;
  return async (message: string) => {
    const res = await api.raw('/api/rag/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kb_id: kbId, message, stream: true, ...(session ? { session_id: session } : {}) }),
    });
    expect(res.status).toBe(200);
    const events = (await res.text())
      .split('\n\n')
      .filter((b) => b.startsWith('event: '))
      .map((b) => ({ event: /^event: (.*)$/m.exec(b)![1], data: JSON.parse(/^data: (.*)$/m.exec(b)![1]!) }));
    const first = events.find((e) => e.event === 'session')!.data;
    const done = events.find((e) => e.event === 'done')!.data;
    session = first.session_id;
    return { query: first.query as string, answer: done.answer as string, files: (done.citations as Array<{ filename: string }>).map((c) => c.filename) };
  };
}

describe('memory over answers (offline)', () => {
  it('follows the publisher an answer named through "that publisher" and then "it"', async () => {
    const ask = conversation();
    const first = await ask('Who publishes the harbour atlas?');
    expect(first.answer).toContain('Tallow & Reed');

    // The publisher appears in no question: only the answer named it.
    const second = await ask('What else has that publisher printed?');
    expect(second.query).toContain('Tallow & Reed');
    expect(second.answer).toContain('Lantern Almanac');
    expect(second.answer).not.toContain('Coastal Pilot');

    const third = await ask('And when was it founded?');
    expect(third.query).toContain('Tallow & Reed');
    expect(third.answer).toContain('1987');
    expect(third.answer).not.toMatch(/1911|1952/);
    expect(third.files).toContain('tallow-reed.md');
    expect(third.files).not.toContain('atlas-society.md');
  });

  it('without the answer to follow, "it" stays on the question\'s subject', async () => {
    // Control: the same follow-up in a conversation whose answers named no publisher asks about the atlas.
    const ask = conversation();
    await ask('How many harbours does the harbour atlas map?');
    const next = await ask('What else does it show?');
    expect(next.query.toLowerCase()).toContain('harbour atlas');
    expect(next.query).not.toContain('Tallow');
  });
});
