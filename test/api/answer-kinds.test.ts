/**
 * What a client gets from POST /api/rag/search (top_k 5, SSE), offline, on documents that are not
 * filings: a field answered with its value, a table row quoted with its labels, the passage that
 * answers found when only the document's cover names what the question names, and a question no
 * document answers refused in knowledge bases of three kinds. The SSE `citations` event is what
 * counts as retrieved, `done.refused` as a refusal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';
import { HANDBOOK_MD, LAKE_REPORT, PILOT_FORM_TXT, PROTOCOL_TXT, RIVER_REPORT, WATER_REPORT_MD } from '../fixtures/answer-kinds';

type File = { name: string; bytes: string | Buffer; type?: string };
type Citation = { filename: string; snippet: string; page: number | null; used: boolean };
type Asked = { citations: Citation[]; answer: string; refused: boolean };

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** A KB of a new organisation holding `files`, ingested; `ask` searches it as a streaming client does. */
async function kb(files: File[]) {
  const { api_key } = await createOrgWithKey(t.deps);
  const api = restClient(t.app, api_key);
  const kbId: string = (await api.post('/api/kbs', { name: 'Kinds' })).body.kb.id;
  for (const f of files) expect((await uploadFile(t.app, api_key, kbId, f)).status).toBe(202);
  await runQueuedJobs(t);
  return async (query: string): Promise<Asked> => {
    const res = await api.raw('/api/rag/search', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kb_id: kbId, query, top_k: 5, stream: true }),
    });
    expect(res.status).toBe(200);
    const events = (await res.text())
      .split('\n\n')
      .map((block) => ({ event: /^event: ?(.*)$/m.exec(block)?.[1], data: /^data: ?(.*)$/m.exec(block)?.[1] }))
      .filter((e): e is { event: string; data: string } => !!e.event && e.data !== undefined)
      .map((e) => ({ event: e.event, data: JSON.parse(e.data) }));
    const citations = events.find((e) => e.event === 'citations')!.data.citations as Citation[];
    const done = events.find((e) => e.event === 'done')!.data;
    return { citations, answer: done.answer, refused: done.refused };
  };
}

const pdf = (name: string, bytes: Buffer): File => ({ name, bytes, type: 'application/pdf' });

describe('answers from the passage holding them, on documents of several kinds', () => {
  it('answers a field of a form page with its value, not a run of labels', async () => {
    const ask = await kb([{ name: 'pilot-data.txt', bytes: PILOT_FORM_TXT }, { name: 'handbook.md', bytes: HANDBOOK_MD }]);
    const r = await ask("What was the pilot's total flight time?");
    expect(r.refused).toBe(false);
    expect(r.answer).toContain('2,319 hours');
    // The answer is the field, not the page's other labels around it.
    expect(r.answer).not.toMatch(/Aircraft Make|Registration|Seat Occupied/);
  });

  it('quotes the table row that answers with its row and column labels', async () => {
    const ask = await kb([{ name: 'water-report.md', bytes: WATER_REPORT_MD }, { name: 'handbook.md', bytes: HANDBOOK_MD }]);
    const r = await ask('How much water did the Riverside district use in 2023?');
    expect(r.refused).toBe(false);
    expect(r.answer).toContain('Riverside');
    expect(r.answer).toContain('915');
    expect(r.answer).toContain('2023');
    expect(r.answer).not.toContain('Northgate');
  });

  it('finds the passage that answers though only the cover names the place and date asked about', async () => {
    const ask = await kb([pdf('era21la144.pdf', LAKE_REPORT), pdf('cen20la301.pdf', RIVER_REPORT)]);
    const r = await ask('What was the probable cause of the accident near Saranac Lake on March 3, 2021?');
    expect(r.refused).toBe(false);
    // The cause page of the report about that place is among the passages sent, and is quoted.
    expect(r.citations.some((c) => c.filename === 'era21la144.pdf' && c.page === 3)).toBe(true);
    expect(r.answer).toContain('failure to maintain airspeed');
    expect(r.answer).not.toContain('fuel exhaustion');
  });

  it('refuses a question no document answers, in a KB of each of three kinds', async () => {
    const kbs = {
      reports: await kb([pdf('era21la144.pdf', LAKE_REPORT), pdf('cen20la301.pdf', RIVER_REPORT)]),
      handbook: await kb([{ name: 'handbook.md', bytes: HANDBOOK_MD }, { name: 'protocol.txt', bytes: PROTOCOL_TXT }]),
      figures: await kb([{ name: 'water-report.md', bytes: WATER_REPORT_MD }]),
    };
    const offTopic = ['What is the refund policy for annual subscriptions?', 'Who won the football World Cup in 2018?', 'How do I reset my router password?'];
    for (const [kind, ask] of Object.entries(kbs)) {
      for (const q of offTopic) {
        const r = await ask(q);
        expect({ kind, q, refused: r.refused }).toEqual({ kind, q, refused: true });
        // A refusal still sends its closest passages, marked unused.
        for (const c of r.citations) expect(c.used).toBe(false);
      }
    }
    // And each still answers what it holds.
    expect((await kbs.handbook('How many days of paid holiday does an employee get?')).answer).toContain('27 days');
    expect((await kbs.figures('How many samples met the drinking water standard in 2023?')).answer).toContain('2,140');
  });
});
