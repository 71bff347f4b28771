/**
 * POST /api/rag/chat: one turn of a conversation with memory. The follow-up is first condensed into a
 * standalone query using the history ("How long can it fly?" -> "How long can the Zephyr-9 fly?"),
 * retrieval runs on that query, and the answer sees the history too. The exchange is stored when
 * the answer is complete.
 */
import { z } from 'zod';
import { condenseQuestion } from '../../ai/condense';
import type { ServiceContext } from '../../context';
import type { ConversationSource } from '../../../db/types';
import type { SessionId } from '../../ids';
import { parseInput } from '../../validation';
import { requireKb } from '../kbs/require-kb';
import { answerStream, responseCitations, type AnswerEvent } from '../../answering/answer-stream';
import { findAnswerSources } from '../rag/answer-sources';
import { answerSupport, appendExchange, loadHistory, openSession } from './sessions';
import { authorize } from '../access/roles';

export const MAX_MESSAGE_CHARS = 4000;

export const ZChatInput = z
  .object({
    message: z.string().trim().min(1, 'must not be empty').max(MAX_MESSAGE_CHARS),
    kb_id: z.string().min(1),
    session_id: z.string().min(1).optional(),
    top_k: z.number().int().min(1).max(50).default(5),
    stream: z.boolean().default(false),
  })
  .strict();
export type ChatInput = z.input<typeof ZChatInput>;

export type ChatEvent = { type: 'session'; session_id: SessionId; query: string } | AnswerEvent;

/**
 * `source` names the transport a new conversation is listed under (api, widget, sandbox); it is the
 * caller's fact, not the client's claim, so it is not part of the input.
 */
export async function startChat(
  ctx: ServiceContext,
  rawInput: ChatInput,
  signal?: AbortSignal,
  source: ConversationSource = 'api',
  /** `visitor`: the address an anonymous (widget) conversation is started from; bounds its sessions. */
  opts: { visitor?: string } = {},
): Promise<AsyncGenerator<ChatEvent>> {
  authorize(ctx, 'query');
  const input = parseInput(ZChatInput, rawInput);
  const kb = await requireKb(ctx, input.kb_id);
  const session = await openSession(ctx, kb, input.session_id, source, opts);
  const history = await loadHistory(ctx, session.id);
  const query = await condenseQuestion({ model: ctx.models.condenseModel, history, followUp: input.message, abortSignal: signal });
  const { retrieval, annotation } = await findAnswerSources(ctx, kb, { query, asked: input.message, topK: input.top_k });

  const similarity = new Map([...retrieval.chunks, ...(retrieval.ranked ?? [])].map((c) => [String(c.chunk_id), c.dense]));

  async function* run(): AsyncGenerator<ChatEvent> {
    yield { type: 'session', session_id: session.id, query };
    for await (const event of answerStream(ctx, { question: input.message, standalone: query, retrieval, annotation, history, signal })) {
      if (event.type === 'done') {
        const support = answerSupport(event.refused, event.citations, similarity);
        const messageId = await appendExchange(ctx, session, input.message, { content: event.answer, citations: event.citations, refused: event.refused, support });
        yield { ...event, message_id: messageId };
        continue;
      }
      yield event;
    }
  }
  return run();
}

/**
 * The non-streamed response shape of the spec: { response, session_id, citations }, plus `refused`
 * (a refusal's citations are the closest passages, each `used: false`).
 */
export async function collectChat(events: AsyncIterable<ChatEvent>) {
  let sessionId: string | null = null;
  for await (const e of events) {
    if (e.type === 'session') sessionId = e.session_id;
    if (e.type === 'done') return { response: e.answer, session_id: sessionId!, citations: responseCitations(e), refused: e.refused };
  }
  throw new Error('chat stream ended without a done event');
}
