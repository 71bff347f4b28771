/**
 * The widget's chat: the same chat service as /api/rag/chat (same retrieval, memory, history bounds
 * and session scoping), narrowed to what a visitor may do: one message of bounded length to the KB
 * the token names, no choice of KB or top_k, and citations trimmed to what the widget shows.
 */
import { z } from 'zod';
import { startChat, type ChatEvent } from '../chat/send-chat-message';
import { readSessionMessages } from '../chat/session-messages';
import { parseInput } from '../../validation';
import type { WidgetCaller } from './authenticate-widget';
import { toWidgetCitation, toWidgetCitations, type WidgetCitation } from './widget-citation';

/** Visitors type questions; the keyed API allows longer messages for programmatic use. */
export const WIDGET_MAX_MESSAGE_CHARS = 1000;
/** Messages a reopened widget shows of a conversation (the session keeps more for the model). */
export const WIDGET_HISTORY_MESSAGES = 50;

export const ZWidgetChatInput = z
  .object({
    message: z.string().trim().min(1, 'must not be empty').max(WIDGET_MAX_MESSAGE_CHARS, `at most ${WIDGET_MAX_MESSAGE_CHARS} characters`),
    session_id: z.string().min(1).max(100).optional(),
  })
  .strict();
export type WidgetChatInput = z.input<typeof ZWidgetChatInput>;

/** ChatEvent with widget citations: the same SSE events as /api/rag/chat, smaller citation objects. */
export type WidgetChatEvent =
  | Extract<ChatEvent, { type: 'session' | 'delta' }>
  | { type: 'sources'; citations: WidgetCitation[] }
  | { type: 'done'; answer: string; citations: WidgetCitation[]; closest: WidgetCitation[]; refused: boolean; message_id?: string };

export async function startWidgetChat(
  caller: WidgetCaller,
  rawInput: WidgetChatInput,
  signal?: AbortSignal,
): Promise<AsyncGenerator<WidgetChatEvent>> {
  const input = parseInput(ZWidgetChatInput, rawInput);
  const events = await startChat(
    caller.ctx,
    { kb_id: caller.kb.id, message: input.message, ...(input.session_id ? { session_id: input.session_id } : {}), stream: true },
    signal,
    'widget',
    { visitor: caller.visitor },
  );
  async function* trimmed(): AsyncGenerator<WidgetChatEvent> {
    for await (const e of events) {
      // The Sandbox's decision (chunk ids, scores, passage text) never reaches a visitor.
      if (e.type === 'sources') yield { type: 'sources', citations: e.citations.map(toWidgetCitation) };
      // A refusal still shows the visitor the closest passages (used: false); the gate's scores stay here.
      else if (e.type === 'done')
        yield {
          type: 'done',
          answer: e.answer,
          citations: e.citations.map(toWidgetCitation),
          closest: e.closest.map(toWidgetCitation),
          refused: e.refused,
          ...(e.message_id ? { message_id: e.message_id } : {}),
        };
      else yield e;
    }
  }
  return trimmed();
}

export const ZWidgetHistoryInput = z.object({ session_id: z.string().min(1).max(100) }).strict();

/** The visible transcript of the caller's own conversation (the session id is its capability). */
export async function widgetHistory(caller: WidgetCaller, rawInput: z.input<typeof ZWidgetHistoryInput>) {
  const { session_id } = parseInput(ZWidgetHistoryInput, rawInput);
  const { messages } = await readSessionMessages(caller.ctx, { kb_id: caller.kb.id, session_id });
  return {
    session_id,
    messages: messages
      .slice(-WIDGET_HISTORY_MESSAGES)
      .map((m) =>
        m.role === 'assistant'
          ? { role: m.role, content: m.content, citations: toWidgetCitations(m.citations), message_id: m.id, feedback: m.feedback }
          : { role: m.role, content: m.content, citations: [] },
      ),
  };
}
