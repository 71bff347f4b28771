/**
 * Conversations, unanswered questions, activity and visitor feedback through GraphQL and tRPC (and the
 * widget's feedback endpoint), on data made through the real transports: the chat API, the widget,
 * the dashboard's Sandbox path (GraphQL without a key is not possible here, so the Sandbox source is
 * covered by the Chromium test), refused questions and ratings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlClient, restClient, trpcClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { createWidgetOrg, createWidgetTestApp, widgetClient, type WidgetOrg } from '../widget/widget-fixture';

let t: Awaited<ReturnType<typeof createWidgetTestApp>>;
let w: WidgetOrg;
let gql: ReturnType<typeof graphqlClient>;
let trpc: ReturnType<typeof trpcClient>;
const widget = () => widgetClient(t.app);
let token: string;
let widgetSession: string;
let widgetAnswers: string[] = [];
let apiRefusedSession: string;

const done = (events: { event: string; data: any }[]) => events.find((e) => e.event === 'done')!.data;

beforeAll(async () => {
  t = await createWidgetTestApp({ env: { WIDGET_RATE_LIMIT_PER_MINUTE: '100000', WIDGET_SESSION_RATE_LIMIT_PER_MINUTE: '100000' } });
  w = await createWidgetOrg(t);
  gql = graphqlClient(t.app, w.apiKey);
  trpc = trpcClient(t.app, w.apiKey);
  const api = restClient(t.app, w.apiKey);

  // Widget: one answered question, one refused, in one conversation.
  token = await widget().token(w.slug, w.kbId);
  const first = await widget().chat(token, { message: 'How long can the Zephyr-9 fly?' });
  expect(first.status).toBe(200);
  widgetSession = first.events.find((e) => e.event === 'session')!.data.session_id;
  widgetAnswers.push(done(first.events).message_id);
  const second = await widget().chat(token, { message: 'The capital of France?', session_id: widgetSession });
  widgetAnswers.push(done(second.events).message_id);

  // API: a refused question worded differently, another refused topic, and an answered one.
  const r1 = await api.post('/api/rag/chat', { kb_id: w.kbId, message: 'capital of France?' });
  expect(r1.status).toBe(200);
  apiRefusedSession = r1.body.session_id;
  await api.post('/api/rag/chat', { kb_id: w.kbId, message: 'Do you ship to Canada?', session_id: apiRefusedSession });
  await api.post('/api/rag/chat', { kb_id: w.kbId, message: 'Who makes the Zephyr-9?' });
}, 120_000);

afterAll(async () => t?.close());

describe('visitor feedback through the widget', () => {
  it('the done event names the stored answer; history shows it with its rating', async () => {
    expect(widgetAnswers.every((id) => /^msg_/.test(id))).toBe(true);
    const rated = await widget().post('feedback', { session_id: widgetSession, message_id: widgetAnswers[0], rating: 'up' }, token);
    expect(rated.status).toBe(200);
    expect(await rated.json()).toEqual({ message_id: widgetAnswers[0], rating: 'up', comment: null });
    const down = await widget().post('feedback', { session_id: widgetSession, message_id: widgetAnswers[1], rating: 'down', comment: 'Not about drones' }, token);
    expect(down.status).toBe(200);
    const history = await (await widget().post('history', { session_id: widgetSession }, token)).json();
    expect(history.messages.filter((m: any) => m.role === 'assistant').map((m: any) => [m.message_id, m.feedback])).toEqual([
      [widgetAnswers[0], 'up'],
      [widgetAnswers[1], 'down'],
    ]);
  });

  it("refuses to rate a question, an API conversation's answer, or another widget's answer: 404, nothing changed", async () => {
    const messages = (await gql(`query($kb: ID!, $s: ID!) { chatMessages(kbId: $kb, sessionId: $s) { id role } }`, { kb: w.kbId, s: apiRefusedSession })).body.data!.chatMessages;
    const apiAnswer = messages.find((m: any) => m.role === 'assistant').id;
    const userMsg = messages.find((m: any) => m.role === 'user').id;
    for (const body of [
      { session_id: apiRefusedSession, message_id: apiAnswer, rating: 'down' },
      { session_id: widgetSession, message_id: userMsg, rating: 'down' },
      { session_id: widgetSession, message_id: apiAnswer, rating: 'down' },
      { session_id: 'sess_nope', message_id: 'msg_nope', rating: 'up' },
    ]) {
      const res = await widget().post('feedback', body, token);
      expect(res.status).toBe(404);
      expect((await res.json()).error.code).toBe('not_found');
    }
    // Another organisation's widget cannot rate this one's answers.
    const other = await createWidgetOrg(t);
    const otherToken = await widget().token(other.slug, other.kbId);
    const res = await widget().post('feedback', { session_id: widgetSession, message_id: widgetAnswers[0], rating: 'down' }, otherToken);
    expect(res.status).toBe(404);
    // Without a widget token: 401; bad rating: 400.
    expect((await widget().post('feedback', { session_id: widgetSession, message_id: widgetAnswers[0], rating: 'up' })).status).toBe(401);
    const bad = await widget().post('feedback', { session_id: widgetSession, message_id: widgetAnswers[0], rating: 'meh' }, token);
    expect(bad.status).toBe(400);
  });

  it('changing a rating moves the count; clearing removes it; usage counts feedback', async () => {
    await widget().post('feedback', { session_id: widgetSession, message_id: widgetAnswers[0], rating: 'down' }, token);
    await widget().post('feedback', { session_id: widgetSession, message_id: widgetAnswers[0], rating: 'up' }, token);
    const usage = (await gql(`{ usage { questionsAsked feedbackUp feedbackDown } }`)).body.data!.usage;
    expect(usage).toEqual({ questionsAsked: 5, feedbackUp: 1, feedbackDown: 1 });
  });
});

const CONVERSATIONS = `query($kb: ID!, $source: ConversationSource, $refused: Boolean, $feedback: FeedbackFilter, $search: String, $from: String, $to: String) {
  conversations(kbId: $kb, source: $source, refused: $refused, feedback: $feedback, search: $search, from: $from, to: $to) {
    nodes { id source turnCount refusedCount feedbackUp feedbackDown firstQuestion }
  }
}`;

describe('conversations: source, counts and filters, the same on GraphQL and tRPC', () => {
  it('lists every conversation with its source, turns, refusals and feedback', async () => {
    const nodes = (await gql(CONVERSATIONS, { kb: w.kbId })).body.data!.conversations.nodes;
    expect(nodes).toHaveLength(3);
    const bySession = Object.fromEntries(nodes.map((n: any) => [n.id, n]));
    expect(bySession[widgetSession]).toMatchObject({ source: 'widget', turnCount: 2, refusedCount: 1, feedbackUp: 1, feedbackDown: 1, firstQuestion: 'How long can the Zephyr-9 fly?' });
    expect(bySession[apiRefusedSession]).toMatchObject({ source: 'api', turnCount: 2, refusedCount: 2, feedbackUp: 0, feedbackDown: 0 });
  });

  it.each([
    [{ source: 'widget' }, ['How long can the Zephyr-9 fly?']],
    [{ source: 'api' }, ['Who makes the Zephyr-9?', 'capital of France?']],
    [{ source: 'voice' }, []],
    [{ refused: true }, ['capital of France?', 'How long can the Zephyr-9 fly?']],
    [{ refused: false }, ['Who makes the Zephyr-9?']],
    [{ feedback: 'down' }, ['How long can the Zephyr-9 fly?']],
    [{ feedback: 'none' }, ['Who makes the Zephyr-9?', 'capital of France?']],
    [{ search: 'CANADA' }, ['capital of France?']],
    [{ search: '100%_' }, []],
    [{ from: '2000-01-01', to: '2000-01-31' }, []],
    [{ from: new Date(Date.now() - 3600_000).toISOString() }, ['Who makes the Zephyr-9?', 'capital of France?', 'How long can the Zephyr-9 fly?']],
  ])('filter %j', async (filter, expected) => {
    const viaGql = (await gql(CONVERSATIONS, { kb: w.kbId, ...filter })).body;
    expect(viaGql.errors).toBeUndefined();
    expect(viaGql.data!.conversations.nodes.map((n: any) => n.firstQuestion).sort()).toEqual([...expected].sort());
    const viaTrpc = await trpc.query('chat.conversations', { kb_id: w.kbId, ...filter });
    expect(viaTrpc.status).toBe(200);
    expect(viaTrpc.body.result.data.conversations.map((n: any) => n.first_question).sort()).toEqual([...expected].sort());
  });

  it('a bad filter is a clear 400 on tRPC and BAD_USER_INPUT on GraphQL', async () => {
    const r = await trpc.query('chat.conversations', { kb_id: w.kbId, from: 'yesterday' });
    expect(r.status).toBe(400);
    const g = await gql(CONVERSATIONS, { kb: w.kbId, from: 'yesterday' });
    expect(g.body.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
  });

  it('opens a conversation as its transcript with each answer\'s sources, refusal and rating', async () => {
    const q = `query($kb: ID!, $id: ID!) { conversation(kbId: $kb, id: $id) {
      conversation { source turnCount } messages { role content refused feedback feedbackComment citations { filename } } } }`;
    const c = (await gql(q, { kb: w.kbId, id: widgetSession })).body.data!.conversation;
    expect(c.conversation).toEqual({ source: 'widget', turnCount: 2 });
    const answers = c.messages.filter((m: any) => m.role === 'assistant');
    expect(answers[0]).toMatchObject({ refused: false, feedback: 'up' });
    expect(answers[0].citations.map((x: any) => x.filename)).toContain('zephyr.md');
    expect(answers[1]).toMatchObject({ refused: true, feedback: 'down', feedbackComment: 'Not about drones', citations: [] });
    const viaTrpc = await trpc.query('chat.conversation', { kb_id: w.kbId, session_id: widgetSession });
    expect(viaTrpc.body.result.data.messages.map((m: any) => m.refused)).toEqual([false, false, false, true]);
    // Another organisation cannot open it.
    const stranger = await createOrgWithKey(t.deps);
    const denied = await graphqlClient(t.app, stranger.api_key)(q, { kb: w.kbId, id: widgetSession });
    expect(denied.body.errors![0]!.extensions!.code).toBe('NOT_FOUND');
  });
});

describe('unanswered questions, grouped by the KB\'s own embeddings', () => {
  const UNANSWERED = `query($kb: ID!) { unansweredQuestions(kbId: $kb) { scanned groups { question count refusedCount questions { sessionId text refused } } } }`;

  it('groups the two wordings of one question, keeps another topic apart, newest first, linking to conversations', async () => {
    // The fake's bag-of-words vectors give answered questions cosines far below a real model's:
    // mark both answers as well supported, so only the refusals are unanswered here.
    const ids = (await t.deps.db.selectFrom('chat_messages').select('id').where('role', '=', 'assistant').where('refused', '=', false).where('support', 'is not', null).execute()).map((r) => r.id);
    expect(ids).toHaveLength(2);
    await t.deps.db.updateTable('chat_messages').set({ support: 0.9 }).where('id', 'in', ids).execute();
    const u = (await gql(UNANSWERED, { kb: w.kbId })).body.data!.unansweredQuestions;
    expect(u.scanned).toBe(3);
    expect(u.groups.map((g: any) => [g.question, g.count])).toEqual([
      ['Do you ship to Canada?', 1],
      ['capital of France?', 2],
    ]);
    expect(u.groups[1].questions.map((q: any) => q.sessionId).sort()).toEqual([apiRefusedSession, widgetSession].sort());
    const viaTrpc = await trpc.query('insights.unanswered', { kb_id: w.kbId });
    expect(viaTrpc.body.result.data.groups.map((g: any) => g.count)).toEqual([1, 2]);
    // The vectors are stored: a second listing embeds nothing new and answers the same.
    const stored = await t.deps.db.selectFrom('chat_messages').select('embedding_model').where('embedding', 'is not', null).execute();
    // Every question is embedded: the unanswered to group them, the answered to tell a later fix.
    expect(stored).toHaveLength(5);
    expect((await gql(UNANSWERED, { kb: w.kbId })).body.data!.unansweredQuestions).toEqual(u);
  });

  it('counts a weakly supported answer as unanswered', async () => {
    const answered = await t.deps.db
      .selectFrom('chat_messages as m')
      .innerJoin('chat_sessions as s', 's.id', 'm.session_id')
      .select(['m.id', 'm.support'])
      .where('s.kb_id', '=', w.kbId as never)
      .where('m.role', '=', 'assistant')
      .where('m.refused', '=', false)
      .execute();
    expect(answered.length).toBe(2);
    expect(answered.every((a) => typeof a.support === 'number')).toBe(true);
    await t.deps.db.updateTable('chat_messages').set({ support: 0.1 }).where('id', '=', answered[0]!.id).execute();
    const u = (await gql(UNANSWERED, { kb: w.kbId })).body.data!.unansweredQuestions;
    expect(u.scanned).toBe(4);
    expect(u.groups.flatMap((g: any) => g.questions).filter((q: any) => !q.refused)).toHaveLength(1);
    await t.deps.db.updateTable('chat_messages').set({ support: answered[0]!.support }).where('id', '=', answered[0]!.id).execute();
  });
});

describe('activity per day, kept when the KB is deleted', () => {
  it('counts questions, refusals and feedback per day and per KB; a deleted KB keeps its counts', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const Q = `query($kb: ID) { activity(kbId: $kb) { total { questions answered refused feedbackUp feedbackDown } days { day questions } knowledgeBases { kbId kbName questions } } }`;
    const a = (await gql(Q, { kb: w.kbId })).body.data!.activity;
    expect(a.total).toEqual({ questions: 5, answered: 2, refused: 3, feedbackUp: 1, feedbackDown: 1 });
    expect(a.days).toHaveLength(30);
    expect(a.days.at(-1)).toEqual({ day: today, questions: 5 });
    const viaTrpc = await trpc.query('insights.activity', { kb_id: w.kbId, from: today, to: today });
    expect(viaTrpc.body.result.data.total.refused).toBe(3);
    expect((await trpc.query('insights.activity', { from: '2020-01-01', to: '2026-12-31' })).status).toBe(400);

    expect((await restClient(t.app, w.apiKey).delete(`/api/kbs/${w.kbId}`)).status).toBe(200);
    const after = (await gql(Q, {})).body.data!.activity;
    expect(after.total.questions).toBe(5);
    expect(after.knowledgeBases).toEqual([{ kbId: w.kbId, kbName: null, questions: 5 }]);
    expect((await gql(`{ usage { questionsAsked feedbackUp } }`)).body.data!.usage).toEqual({ questionsAsked: 5, feedbackUp: 1 });
  });
});
