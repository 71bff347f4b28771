import { deleteSession, listSessionMessages } from '../src/services/chat/session-messages';
import { collectChat, startChat } from '../src/services/chat/send-chat-message';
import { collectSearchResponse, type Citation } from '../src/services/rag/answer-events';
import { startSearch } from '../src/services/rag/search';
import type { ServiceContext } from '../src/context';
import { builder } from './builder';

/** The dashboard (signed in with the session cookie, no API key) is the Sandbox; a key is the API. */
export const chatSource = (ctx: ServiceContext) => (ctx.apiKeyId ? 'api' : 'sandbox');
const chatAs = (ctx: ServiceContext, input: Parameters<typeof startChat>[1], signal?: AbortSignal) => startChat(ctx, input, signal, chatSource(ctx));

const CitationSourceTypeEnum = builder.enumType('CitationSourceType', { values: ['document', 'annotation'] as const });

export const CitationRef = builder.objectRef<Citation>('Citation').implement({
  fields: (t) => ({
    docId: t.exposeID('doc_id'),
    score: t.exposeFloat('score', { description: 'Relevance in (0, 1); higher is better' }),
    chunkId: t.exposeID('chunk_id'),
    marker: t.exposeInt('marker'),
    filename: t.exposeString('filename'),
    url: t.exposeString('url', { nullable: true }),
    page: t.exposeInt('page', { nullable: true }),
    heading: t.exposeString('heading', { nullable: true }),
    snippet: t.exposeString('snippet'),
    used: t.boolean({
      description: 'false when the answer was refused: the passage is only among the closest retrieved, not a source of the answer',
      // Citations stored before this field existed were all used by their answer.
      resolve: (c) => c.used ?? true,
    }),
    sourceType: t.field({
      type: CitationSourceTypeEnum,
      description: 'annotation: a curated answer answered (docId and chunkId are then its id); document: a passage of a document',
      resolve: (c) => c.source_type ?? 'document',
    }),
    annotationId: t.id({ nullable: true, resolve: (c) => c.annotation_id ?? null }),
    title: t.string({ nullable: true, description: "The curated answer's question", resolve: (c) => c.title ?? null }),
  }),
});

const REFUSED_DESCRIPTION = 'The answer says it could not answer from the knowledge base; citations are then the closest passages (used: false)';

const SearchResult = builder.objectRef<{ answer: string; citations: Citation[]; refused: boolean }>('SearchResult').implement({
  fields: (t) => ({
    answer: t.exposeString('answer'),
    citations: t.field({ type: [CitationRef], resolve: (r) => r.citations }),
    refused: t.exposeBoolean('refused', { description: REFUSED_DESCRIPTION }),
  }),
});

const ChatResult = builder.objectRef<{ response: string; session_id: string; citations: Citation[]; refused: boolean }>('ChatResult').implement({
  fields: (t) => ({
    response: t.exposeString('response'),
    sessionId: t.exposeID('session_id'),
    citations: t.field({ type: [CitationRef], resolve: (r) => r.citations }),
    refused: t.exposeBoolean('refused', { description: REFUSED_DESCRIPTION }),
  }),
});

type Msg = Awaited<ReturnType<typeof listSessionMessages>>['messages'][number];
export const FeedbackRatingEnum = builder.enumType('FeedbackRating', { values: ['up', 'down'] as const });
export const ChatMessage = builder.objectRef<Msg>('ChatMessage').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    role: t.exposeString('role'),
    content: t.exposeString('content'),
    citations: t.field({ type: [CitationRef], resolve: (m) => m.citations as Citation[] }),
    createdAt: t.field({ type: 'DateTime', resolve: (m) => m.created_at }),
    refused: t.exposeBoolean('refused', { description: 'An answer that declined (nothing relevant enough in the KB)' }),
    support: t.exposeFloat('support', { nullable: true, description: "An answer's best cosine similarity to a passage it cites" }),
    feedback: t.field({ type: FeedbackRatingEnum, nullable: true, description: "The visitor's rating of an answer", resolve: (m) => m.feedback }),
    feedbackComment: t.exposeString('feedback_comment', { nullable: true }),
  }),
});

builder.queryFields((t) => ({
  search: t.field({
    type: SearchResult,
    args: { kbId: t.arg.id({ required: true }), query: t.arg.string({ required: true }), topK: t.arg.int() },
    resolve: async (_r, { kbId, query, topK }, ctx) =>
      collectSearchResponse(await startSearch(await ctx.auth(), { kb_id: String(kbId), query, ...(topK != null ? { top_k: topK } : {}) })),
  }),
  chatMessages: t.field({
    type: [ChatMessage],
    args: { kbId: t.arg.id({ required: true }), sessionId: t.arg.id({ required: true }) },
    resolve: async (_r, { kbId, sessionId }, ctx) =>
      (await listSessionMessages(await ctx.auth(), { kb_id: String(kbId), session_id: String(sessionId) })).messages,
  }),
}));

builder.mutationFields((t) => ({
  chat: t.field({
    type: ChatResult,
    args: { kbId: t.arg.id({ required: true }), message: t.arg.string({ required: true }), sessionId: t.arg.id() },
    resolve: async (_r, { kbId, message, sessionId }, ctx) =>
      collectChat(await chatAs(await ctx.auth(), { kb_id: String(kbId), message, ...(sessionId != null ? { session_id: String(sessionId) } : {}) })),
  }),
  deleteChatSession: t.field({
    type: builder.objectRef<{ success: boolean }>('DeleteChatSessionResult').implement({ fields: (f) => ({ success: f.exposeBoolean('success') }) }),
    args: { kbId: t.arg.id({ required: true }), sessionId: t.arg.id({ required: true }) },
    resolve: async (_r, { kbId, sessionId }, ctx) => deleteSession(await ctx.auth(), { kb_id: String(kbId), session_id: String(sessionId) }),
  }),
}));
