/**
 * The chat as a GraphQL subscription (served over SSE by yoga): the same events REST's streamed chat
 * sends, from the same service stream, so the dashboard can render the answer as it is generated.
 */
import { startChat, type ChatEvent } from '../src/services/chat/send-chat-message';
import { responseCitations, type Citation, type AnswerDecision } from '../src/services/rag/answer-events';
import { builder } from './builder';
import { chatSource, CitationRef } from './answers';

const ChatStreamEventType = builder.enumType('ChatStreamEventType', {
  description: 'session first, then citations (the retrieved sources), delta (repeated), and done',
  values: ['session', 'citations', 'delta', 'done'] as const,
});

export const DecisionReasonEnum = builder.enumType('AnswerDecisionReason', {
  description: 'relevant: answered; no_passages: the KB has nothing to search; nothing_relevant: nothing retrieved is about the question; not_covered: no passage holds what the question asks (offline answerer); annotation: a curated answer matched the question',
  values: ['relevant', 'no_passages', 'nothing_relevant', 'not_covered', 'annotation'] as const,
});

type DecisionPassage = AnswerDecision['passages'][number];
const DecisionPassageRef = builder.objectRef<DecisionPassage>('AnswerDecisionPassage').implement({
  description: 'A retrieved passage as the answer path saw it: the score is the citation score',
  fields: (t) => ({
    marker: t.exposeInt('marker'),
    chunkId: t.exposeID('chunk_id'),
    docId: t.exposeID('doc_id'),
    filename: t.exposeString('filename'),
    url: t.exposeString('url', { nullable: true }),
    page: t.exposeInt('page', { nullable: true }),
    heading: t.exposeString('heading', { nullable: true }),
    text: t.exposeString('text'),
    score: t.exposeFloat('score'),
    lexicalScore: t.exposeFloat('lexical'),
    vectorScore: t.exposeFloat('dense'),
  }),
});

const AnswerDecisionRef = builder.objectRef<AnswerDecision>('AnswerDecision').implement({
  description: "What the answer path decided before generating: the refusal gate's verdict and the passages it judged",
  fields: (t) => ({
    answered: t.exposeBoolean('answered', { description: 'False: the answer is the refusal, and the model was not asked' }),
    reason: t.field({ type: DecisionReasonEnum, resolve: (d) => d.reason }),
    passages: t.field({ type: [DecisionPassageRef], resolve: (d) => d.passages }),
  }),
});

type StreamItem = { event: ChatEvent; sessionId: string } | { failure: unknown };

const ChatStreamEvent = builder.objectRef<{ event: ChatEvent; sessionId: string }>('ChatStreamEvent').implement({
  description: 'One event of a streamed chat answer; fields that do not belong to the event type are null',
  fields: (t) => ({
    type: t.field({ type: ChatStreamEventType, resolve: ({ event }) => (event.type === 'sources' ? 'citations' : event.type) }),
    sessionId: t.exposeID('sessionId'),
    query: t.string({ nullable: true, description: 'session: the question as retrieval read it (condensed with the history)', resolve: ({ event }) => (event.type === 'session' ? event.query : null) }),
    text: t.string({ nullable: true, description: 'delta: the next piece of the answer', resolve: ({ event }) => (event.type === 'delta' ? event.text : null) }),
    answer: t.string({ nullable: true, description: 'done: the full answer', resolve: ({ event }) => (event.type === 'done' ? event.answer : null) }),
    decision: t.field({
      type: AnswerDecisionRef,
      nullable: true,
      description: "citations: the answer path's decision (refusal gate and the passages it judged)",
      resolve: ({ event }) => (event.type === 'sources' ? (event.decision ?? null) : null),
    }),
    messageId: t.id({ nullable: true, description: 'done: the stored answer (conversations list it under this id)', resolve: ({ event }) => (event.type === 'done' ? (event.message_id ?? null) : null) }),
    citations: t.field({
      type: [CitationRef],
      nullable: true,
      description: 'citations: every retrieved source; done: the sources the answer cites (a refusal: the closest passages, used: false)',
      resolve: ({ event }): Citation[] | null => (event.type === 'sources' ? event.citations : event.type === 'done' ? responseCitations(event) : null),
    }),
    refused: t.boolean({
      nullable: true,
      description: 'done: the answer says it could not answer from the knowledge base',
      resolve: ({ event }) => (event.type === 'done' ? event.refused : null),
    }),
  }),
});

builder.subscriptionFields((t) => ({
  chatStream: t.field({
    type: ChatStreamEvent,
    description: 'The chat mutation, streamed: memory is kept per sessionId, the exchange is stored when done',
    args: { kbId: t.arg.id({ required: true }), message: t.arg.string({ required: true }), sessionId: t.arg.id() },
    // An async function (not a generator): authentication and input errors are raised before the
    // stream starts, so they come back as an ordinary GraphQL error.
    subscribe: async (_r, { kbId, message, sessionId }, ctx) => {
      const abort = new AbortController();
      ctx.request.signal?.addEventListener('abort', () => abort.abort());
      const svc = await ctx.auth();
      const events = await startChat(svc, { kb_id: String(kbId), message, ...(sessionId != null ? { session_id: String(sessionId) } : {}) }, abort.signal, chatSource(svc));
      async function* stream(): AsyncGenerator<StreamItem> {
        let session = '';
        try {
          for await (const event of events) {
            if (event.type === 'session') session = event.session_id;
            yield { event, sessionId: session };
          }
        } catch (failure) {
          // Raised by resolve, so maskError turns it into the shared error code table.
          if (!abort.signal.aborted) yield { failure };
        } finally {
          // The client went away (yoga returns the iterator): stop generating.
          abort.abort();
        }
      }
      return stream() as AsyncIterable<never>;
    },
    resolve: (item: StreamItem) => {
      if ('failure' in item) throw item.failure;
      return item;
    },
  }),
}));
