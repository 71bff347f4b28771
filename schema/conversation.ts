/** The Sandbox's view of answers: retrieval with its scores, and a KB's past conversations. */
import { CONVERSATION_SOURCES, FEEDBACK_FILTERS, listConversations, type Conversation } from '../src/services/chat/list-conversations';
import { getConversation } from '../src/services/chat/session-messages';
import { ChatMessage } from './answers';
import { retrieveDebug } from '../src/services/rag/retrieve-debug';
import { builder } from './builder';
import { DecisionReasonEnum } from './chat-stream';

type Passage = Awaited<ReturnType<typeof retrieveDebug>>['passages'][number];
const PassageRef = builder.objectRef<Passage>('RetrievedPassage').implement({
  fields: (t) => ({
    rank: t.exposeInt('rank'),
    chunkId: t.exposeID('chunk_id'),
    docId: t.exposeID('doc_id'),
    filename: t.exposeString('filename'),
    text: t.exposeString('text'),
    headingPath: t.exposeStringList('heading_path'),
    page: t.exposeInt('page', { nullable: true }),
    url: t.exposeString('url', { nullable: true }),
    score: t.exposeFloat('score', { description: 'Fused relevance in (0, 1), as citations show it' }),
    lexicalScore: t.exposeFloat('lexical', { description: 'BM25 score (0 when no query word matches)' }),
    vectorScore: t.exposeFloat('dense', { description: 'Cosine similarity of the embeddings' }),
  }),
});

const RetrievalRef = builder.objectRef<Awaited<ReturnType<typeof retrieveDebug>>>('Retrieval').implement({
  fields: (t) => ({
    confident: t.exposeBoolean('confident', { description: "The answer path's own refusal gate: false when chat would answer that nothing relevant enough was found" }),
    reason: t.field({ type: DecisionReasonEnum, description: 'Which check of the refusal gate decided', resolve: (r) => r.reason }),
    passages: t.field({ type: [PassageRef], resolve: (r) => r.passages }),
  }),
});

export const ConversationSourceEnum = builder.enumType('ConversationSource', {
  description: 'Where a conversation was started: the chat API, the widget (typed), the widget by voice, or the Sandbox',
  values: CONVERSATION_SOURCES,
});
const FeedbackFilterEnum = builder.enumType('FeedbackFilter', { values: FEEDBACK_FILTERS });

const ConversationRef = builder.objectRef<Conversation>('Conversation').implement({
  description: 'A chat session of a KB (from the API, the widget or the dashboard)',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The session id: pass it to chat and chatMessages' }),
    source: t.field({ type: ConversationSourceEnum, resolve: (c) => c.source }),
    createdAt: t.field({ type: 'DateTime', resolve: (c) => c.created_at }),
    updatedAt: t.field({ type: 'DateTime', resolve: (c) => c.updated_at }),
    messageCount: t.exposeInt('message_count'),
    turnCount: t.exposeInt('turn_count', { description: 'Questions asked' }),
    refusedCount: t.exposeInt('refused_count', { description: 'Answers that declined' }),
    feedbackUp: t.exposeInt('feedback_up'),
    feedbackDown: t.exposeInt('feedback_down'),
    firstQuestion: t.exposeString('first_question', { nullable: true }),
  }),
});

const ConversationDetail = builder.objectRef<Awaited<ReturnType<typeof getConversation>>>('ConversationDetail').implement({
  description: 'A conversation with its transcript',
  fields: (t) => ({
    conversation: t.field({ type: ConversationRef, resolve: (c) => c }),
    messages: t.field({ type: [ChatMessage], resolve: (c) => c.messages }),
  }),
});

const ConversationPage = builder.objectRef<Awaited<ReturnType<typeof listConversations>>>('ConversationPage').implement({
  fields: (t) => ({
    nodes: t.field({ type: [ConversationRef], resolve: (p) => p.conversations }),
    nextCursor: t.exposeString('next_cursor', { nullable: true }),
  }),
});

builder.queryFields((t) => ({
  retrieve: t.field({
    type: RetrievalRef,
    description: 'Retrieval only (no answer): the passages in rank order with their lexical and vector scores',
    args: { kbId: t.arg.id({ required: true }), query: t.arg.string({ required: true }), topK: t.arg.int() },
    resolve: async (_r, { kbId, query, topK }, ctx) => retrieveDebug(await ctx.auth(), { kb_id: String(kbId), query, ...(topK != null ? { top_k: topK } : {}) }),
  }),
  conversations: t.field({
    type: ConversationPage,
    description: "A KB's conversations, most recently active first",
    args: {
      kbId: t.arg.id({ required: true }),
      first: t.arg.int({ defaultValue: 20 }),
      after: t.arg.string(),
      from: t.arg.string({ description: 'Active on or after (ISO date or date-time)' }),
      to: t.arg.string({ description: 'Started before the end of (ISO date) or before (date-time)' }),
      source: t.arg({ type: ConversationSourceEnum }),
      refused: t.arg.boolean({ description: 'true: with a refused answer; false: none refused' }),
      feedback: t.arg({ type: FeedbackFilterEnum }),
      search: t.arg.string({ description: 'Text in any question or answer (case-insensitive)' }),
    },
    resolve: async (_r, a, ctx) =>
      listConversations(await ctx.auth(), {
        kb_id: String(a.kbId),
        limit: a.first ?? 20,
        ...(a.after ? { cursor: a.after } : {}),
        ...(a.from != null ? { from: a.from } : {}),
        ...(a.to != null ? { to: a.to } : {}),
        ...(a.source != null ? { source: a.source } : {}),
        ...(a.refused != null ? { refused: a.refused } : {}),
        ...(a.feedback != null ? { feedback: a.feedback } : {}),
        ...(a.search != null ? { search: a.search } : {}),
      }),
  }),
  conversation: t.field({
    type: ConversationDetail,
    description: 'One conversation: source, counts and transcript with each answer\'s sources',
    args: { kbId: t.arg.id({ required: true }), id: t.arg.id({ required: true }) },
    resolve: async (_r, { kbId, id }, ctx) => getConversation(await ctx.auth(), { kb_id: String(kbId), session_id: String(id) }),
  }),
}));
