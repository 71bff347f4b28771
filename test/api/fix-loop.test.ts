/**
 * The fix loop through every transport: a curated answer (annotation) answers a matching question
 * first on REST search (JSON and SSE), REST chat, GraphQL, tRPC and the widget, cited as curated;
 * it never answers in another KB, and another organisation can neither see, use nor change it. A
 * document switched off is out of retrieval. Unanswered lists a visitor's thumbs-down and drops a
 * group once a later run of the question is answered with support, or a curated answer answers it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlClient, restClient, trpcClient } from '../helpers/api-client';
import { uploadFile } from '../helpers/upload';
import { runQueuedJobs } from '../helpers/jobs';
import { createWidgetOrg, createWidgetTestApp, widgetClient, ZEPHYR_MD, type WidgetOrg } from '../widget/widget-fixture';

let t: Awaited<ReturnType<typeof createWidgetTestApp>>;
let a: WidgetOrg;
let b: WidgetOrg;
let c: WidgetOrg;
let kb2: string;
let annotationId: string;

const QUESTION = 'Does the Zephyr-9 come with a carrying case?';
const ASKED = 'does the zephyr-9 come with a carrying case';
const ANSWER = 'Yes: every Zephyr-9 ships with a hard carrying case and a spare propeller set.';
const ANSWERED = 'How long can the Zephyr-9 fly?';

const done = (events: { event: string; data: any }[]) => events.find((e) => e.event === 'done')!.data;
const sse = (text: string) =>
  text
    .split('\n\n')
    .filter((block) => /^event: /m.test(block))
    .map((block) => ({ event: /^event: (.*)$/m.exec(block)![1]!, data: JSON.parse(block.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n')) }));

beforeAll(async () => {
  t = await createWidgetTestApp({ env: { WIDGET_RATE_LIMIT_PER_MINUTE: '100000', WIDGET_SESSION_RATE_LIMIT_PER_MINUTE: '100000' } });
  a = await createWidgetOrg(t);
  b = await createWidgetOrg(t);
  c = await createWidgetOrg(t);
  const api = restClient(t.app, a.apiKey);
  kb2 = (await api.post('/api/kbs', { name: 'Second KB' })).body.kb.id;
  expect((await uploadFile(t.app, a.apiKey, kb2, { name: 'zephyr.md', bytes: ZEPHYR_MD })).status).toBe(202);
  await runQueuedJobs(t);
}, 120_000);

afterAll(async () => t?.close());

describe('curated answers', () => {
  it('is given on GraphQL, listed on tRPC, and recorded in the audit log', async () => {
    const gql = graphqlClient(t.app, a.apiKey);
    const made = await gql(
      `mutation($kb: ID!, $q: String!, $a: String!) { createAnnotation(kbId: $kb, question: $q, answer: $a, from: unanswered) { id question answer enabled createdBy } }`,
      { kb: a.kbId, q: QUESTION, a: ANSWER },
    );
    expect(made.body.errors).toBeUndefined();
    const annotation = made.body.data!.createAnnotation;
    expect(annotation).toMatchObject({ question: QUESTION, answer: ANSWER, enabled: true });
    expect(annotation.createdBy).toMatch(/^key /);
    annotationId = annotation.id;
    const listed = await trpcClient(t.app, a.apiKey).query('annotations.list', { kb_id: a.kbId });
    expect(listed.body.result.data.annotations.map((x: any) => x.id)).toEqual([annotationId]);
    const audit = await t.deps.db.selectFrom('audit_log').selectAll().where('target_id', '=', annotationId).execute();
    expect(audit.map((e) => [e.action, e.org_id, (e.changes as any).from])).toEqual([['annotation.create', a.orgId, 'unanswered']]);
  });

  it('answers first on REST search, as JSON and as SSE, cited as curated', async () => {
    const api = restClient(t.app, a.apiKey);
    const res = await api.post('/api/rag/search', { kb_id: a.kbId, query: ASKED });
    expect(res.status).toBe(200);
    expect(res.body.answer).toBe(ANSWER);
    expect(res.body.refused).toBe(false);
    expect(res.body.citations).toEqual([
      expect.objectContaining({ doc_id: annotationId, source_type: 'annotation', annotation_id: annotationId, title: QUESTION, used: true }),
    ]);
    const stream = await api.raw('/api/rag/search', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kb_id: a.kbId, query: ASKED, stream: true }) });
    const events = sse(await stream.text());
    const citations = events.find((e) => e.event === 'citations')!.data;
    expect((Array.isArray(citations) ? citations : citations.citations).map((c: any) => c.source_type)).toEqual(['annotation']);
    expect(events.filter((e) => e.event === 'delta').map((e) => e.data.text ?? e.data).join('')).toBe(ANSWER);
  });

  it('answers first on REST chat, GraphQL and tRPC', async () => {
    const chat = await restClient(t.app, a.apiKey).post('/api/rag/chat', { kb_id: a.kbId, message: ASKED });
    expect(chat.body.response).toBe(ANSWER);
    expect(chat.body.citations[0]).toMatchObject({ source_type: 'annotation', title: QUESTION });
    const gql = await graphqlClient(t.app, a.apiKey)(
      `query($kb: ID!, $q: String!) { search(kbId: $kb, query: $q) { answer refused citations { sourceType annotationId title docId } } }`,
      { kb: a.kbId, q: ASKED },
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data!.search).toEqual({ answer: ANSWER, refused: false, citations: [{ sourceType: 'annotation', annotationId, title: QUESTION, docId: annotationId }] });
    const trpc = trpcClient(t.app, a.apiKey);
    const s = await trpc.mutation('rag.search', { kb_id: a.kbId, query: ASKED });
    expect(s.body.result.data).toMatchObject({ answer: ANSWER, citations: [{ source_type: 'annotation' }] });
    const c = await trpc.mutation('rag.chat', { kb_id: a.kbId, message: ASKED });
    expect(c.body.result.data).toMatchObject({ response: ANSWER, citations: [{ source_type: 'annotation' }] });
  });

  it("answers first in the widget, the visitor's citation titled by its question", async () => {
    const widget = widgetClient(t.app);
    const token = await widget.token(a.slug, a.kbId);
    const res = await widget.chat(token, { message: ASKED });
    expect(res.status).toBe(200);
    const d = done(res.events);
    expect(d.answer).toBe(ANSWER);
    expect(d.refused).toBe(false);
    expect(d.citations).toEqual([expect.objectContaining({ source_type: 'annotation', title: QUESTION, filename: 'Curated answer' })]);
  });

  it('never answers a different question, nor in another KB of the organisation', async () => {
    const api = restClient(t.app, a.apiKey);
    const other = await api.post('/api/rag/search', { kb_id: a.kbId, query: ANSWERED });
    expect(other.body.answer).not.toBe(ANSWER);
    expect(other.body.citations.every((c: any) => c.source_type === 'document')).toBe(true);
    const inKb2 = await api.post('/api/rag/search', { kb_id: kb2, query: QUESTION });
    expect(inKb2.body.answer).not.toBe(ANSWER);
    expect(inKb2.body.citations.every((c: any) => c.source_type === 'document')).toBe(true);
  });

  it('another organisation can neither see, use nor change it, on any transport', async () => {
    const gqlB = graphqlClient(t.app, b.apiKey);
    const seen = await gqlB(`query($kb: ID!) { annotations(kbId: $kb) { id } }`, { kb: a.kbId });
    expect(seen.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const changed = await gqlB(`mutation($kb: ID!, $id: ID!) { updateAnnotation(kbId: $kb, id: $id, answer: "Hijacked") { id } }`, { kb: a.kbId, id: annotationId });
    expect(changed.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    // Its own KB id with A's annotation id: still not found.
    const crossed = await gqlB(`mutation($kb: ID!, $id: ID!) { deleteAnnotation(kbId: $kb, id: $id) { deleted } }`, { kb: b.kbId, id: annotationId });
    expect(crossed.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const trpcB = trpcClient(t.app, b.apiKey);
    expect((await trpcB.query('annotations.list', { kb_id: a.kbId })).body.error.data.code).toBe('NOT_FOUND');
    expect((await trpcB.mutation('annotations.update', { kb_id: b.kbId, id: annotationId, enabled: false })).body.error.data.code).toBe('NOT_FOUND');
    expect((await trpcB.mutation('annotations.delete', { kb_id: a.kbId, id: annotationId })).body.error.data.code).toBe('NOT_FOUND');
    // B's own KB holds the same document: the same question is answered from it, not from A's curated answer.
    const own = await restClient(t.app, b.apiKey).post('/api/rag/search', { kb_id: b.kbId, query: QUESTION });
    expect(own.body.answer).not.toBe(ANSWER);
    const widget = widgetClient(t.app);
    const wb = await widget.chat(await widget.token(b.slug, b.kbId), { message: QUESTION });
    expect(done(wb.events).answer).not.toBe(ANSWER);
    const row = await t.deps.db.selectFrom('annotations').select(['answer', 'enabled']).where('id', '=', annotationId as never).executeTakeFirstOrThrow();
    expect(row).toEqual({ answer: ANSWER, enabled: true });
  });

  it('switched off, it stops answering; switched on and edited, it answers with the new text', async () => {
    const trpc = trpcClient(t.app, a.apiKey);
    const api = restClient(t.app, a.apiKey);
    const off = await trpc.mutation('annotations.update', { kb_id: a.kbId, id: annotationId, enabled: false });
    expect(off.body.result.data.annotation.enabled).toBe(false);
    expect((await api.post('/api/rag/search', { kb_id: a.kbId, query: ASKED })).body.answer).not.toBe(ANSWER);
    await trpc.mutation('annotations.update', { kb_id: a.kbId, id: annotationId, enabled: true, answer: 'Yes, a hard case.' });
    expect((await api.post('/api/rag/search', { kb_id: a.kbId, query: ASKED })).body.answer).toBe('Yes, a hard case.');
    const actions = await t.deps.db.selectFrom('audit_log').select('action').where('target_id', '=', annotationId).orderBy('id').execute();
    expect(actions.map((r) => r.action)).toEqual(['annotation.create', 'annotation.disable', 'annotation.update']);
  });

  it('refuses bad input with a clear error', async () => {
    const res = await trpcClient(t.app, a.apiKey).mutation('annotations.create', { kb_id: a.kbId, question: '  ', answer: 'x' });
    expect(res.body.error.data.code).toBe('BAD_REQUEST');
    expect(res.body.error.message).toMatch(/question/);
  });
});

describe('a document switched off', () => {
  it('is out of retrieval on every side until switched on again; another organisation cannot switch it', async () => {
    const api = restClient(t.app, a.apiKey);
    const docId = (await api.get(`/api/kbs/${kb2}/documents`)).body.documents[0].id;
    const before = await api.post('/api/rag/search', { kb_id: kb2, query: ANSWERED });
    expect(before.body.refused).toBe(false);
    expect(before.body.citations.some((c: any) => c.doc_id === docId)).toBe(true);

    expect((await restClient(t.app, b.apiKey).patch(`/api/kbs/${kb2}/documents/${docId}`, { enabled: false })).status).toBe(404);
    expect((await api.patch(`/api/kbs/${kb2}/documents/${docId}`, { enabled: 'no' })).status).toBe(400);
    const off = await api.patch(`/api/kbs/${kb2}/documents/${docId}`, { enabled: false });
    expect(off.status).toBe(200);
    expect(off.body.document.enabled).toBe(false);
    const after = await api.post('/api/rag/search', { kb_id: kb2, query: ANSWERED });
    expect(after.body.refused).toBe(true);
    expect(after.body.citations).toEqual([]);
    const chunks = await api.get(`/api/kbs/${kb2}/documents/${docId}/chunks`);
    expect(chunks.status).toBe(200);

    const gql = await graphqlClient(t.app, a.apiKey)(`mutation($kb: ID!, $id: ID!) { setDocumentEnabled(kbId: $kb, id: $id, enabled: true) { enabled } }`, { kb: kb2, id: docId });
    expect(gql.body.data!.setDocumentEnabled.enabled).toBe(true);
    expect((await api.post('/api/rag/search', { kb_id: kb2, query: ANSWERED })).body.refused).toBe(false);
    const viaTrpc = await trpcClient(t.app, a.apiKey).mutation('documents.setEnabled', { kb_id: kb2, id: docId, enabled: false });
    expect(viaTrpc.body.result.data.document.enabled).toBe(false);
    // A re-ingest's new chunks take the document's switch.
    expect((await api.post(`/api/kbs/${kb2}/documents/${docId}/reingest`, {})).status).toBeLessThan(300);
    await runQueuedJobs(t);
    expect((await api.post('/api/rag/search', { kb_id: kb2, query: ANSWERED })).body.citations).toEqual([]);
    const actions = await t.deps.db.selectFrom('audit_log').select('action').where('target_id', '=', docId).orderBy('id').execute();
    expect(actions.map((r) => r.action).filter((a) => /^document\.(en|dis)able$/.test(a))).toEqual(['document.disable', 'document.enable', 'document.disable']);
    expect(actions.map((r) => r.action)).toContain('document.reingest');
  });
});

describe('unanswered questions', () => {
  const UNANSWERED = `query($kb: ID!) { unansweredQuestions(kbId: $kb) { groups { question count ratedDownCount questions { text ratedDown } } } }`;
  const groups = async () => (await graphqlClient(t.app, c.apiKey)(UNANSWERED, { kb: c.kbId })).body.data!.unansweredQuestions.groups;

  it("lists a visitor's thumbs-down, and drops it once a later run of the question is answered with support", async () => {
    const widget = widgetClient(t.app);
    const token = await widget.token(c.slug, c.kbId);
    const first = await widget.chat(token, { message: ANSWERED });
    const d = done(first.events);
    expect(d.refused).toBe(false);
    const sessionId = first.events.find((e) => e.event === 'session')!.data.session_id;
    // The fake's bag-of-words vectors score support low: mark the answer well supported, so only the rating counts.
    await t.deps.db.updateTable('chat_messages').set({ support: 0.9 }).where('id', '=', d.message_id).execute();
    expect(await groups()).toEqual([]);
    expect((await widget.post('feedback', { session_id: sessionId, message_id: d.message_id, rating: 'down' }, token)).status).toBe(200);
    expect(await groups()).toEqual([{ question: ANSWERED, count: 1, ratedDownCount: 1, questions: [{ text: ANSWERED, ratedDown: true }] }]);

    const again = await widget.chat(token, { message: ANSWERED });
    const later = done(again.events);
    await t.deps.db.updateTable('chat_messages').set({ support: 0.9 }).where('id', '=', later.message_id).execute();
    expect(await groups()).toEqual([]);
  });

  it('drops a refused question once a curated answer answers it', async () => {
    const api = restClient(t.app, c.apiKey);
    const refused = await api.post('/api/rag/chat', { kb_id: c.kbId, message: 'What is the capital of France?' });
    expect(refused.body.refused).toBe(true);
    expect((await groups()).map((g: any) => g.question)).toEqual(['What is the capital of France?']);
    await trpcClient(t.app, c.apiKey).mutation('annotations.create', { kb_id: c.kbId, question: 'What is the capital of France?', answer: 'Paris.', from: 'unanswered' });
    expect(await groups()).toEqual([]);
  });
});
