/**
 * Server-sent events for answers (hono's streamSSE). Events, in order:
 *   session   {session_id, query}        chat only
 *   citations {citations}                the retrieved sources, numbered as the answer's [n] markers
 *                                        (on a refusal the closest passages, each with used: false)
 *   delta     {text}                     answer text, in order, as generated
 *   done      {answer, citations, refused, ...}   the full answer and the citations it actually used
 *                                        (on a refusal, refused: true and the closest passages, used: false)
 *   error     {error: {code, message}}   instead of done when generation fails
 * A `: keep-alive` comment is sent every few seconds while the model is slow, and generation is
 * aborted when the client goes away.
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { errorBody, toAppError } from '../errors';
import type { ChatEvent } from '../services/chat/send-chat-message';
import { responseCitations } from '../services/rag/answer-events';

export function sseResponse(
  c: Context,
  abort: AbortController,
  events: AsyncIterable<ChatEvent>,
  opts: { heartbeatMs?: number } = {},
): Response {
  const extraDone: Record<string, unknown> = {};
  c.header('Cache-Control', 'no-cache, no-transform');
  c.header('X-Accel-Buffering', 'no'); // nginx and Heroku-style routers must not buffer the stream
  return streamSSE(
    c,
    async (stream) => {
      stream.onAbort(() => abort.abort());
      const heartbeat = setInterval(() => void stream.write(': keep-alive\n\n').catch(() => {}), opts.heartbeatMs ?? 5_000);
      try {
        for await (const e of events) {
          if (stream.aborted) break;
          if (e.type === 'session') {
            Object.assign(extraDone, { session_id: e.session_id });
            await stream.writeSSE({ event: 'session', data: JSON.stringify({ session_id: e.session_id, query: e.query }) });
          } else if (e.type === 'sources') {
            await stream.writeSSE({ event: 'citations', data: JSON.stringify({ citations: e.citations }) });
          } else if (e.type === 'delta') {
            await stream.writeSSE({ event: 'delta', data: JSON.stringify({ text: e.text }) });
          } else {
            await stream.writeSSE({ event: 'done', data: JSON.stringify({ answer: e.answer, citations: responseCitations(e), refused: e.refused, ...extraDone, ...(e.message_id ? { message_id: e.message_id } : {}) }) });
          }
        }
      } catch (err) {
        if (!abort.signal.aborted) {
          const appError = toAppError(err, c.get('requestId'));
          if (appError.code === 'internal_error') c.get('logger')?.error({ err }, 'answer stream failed');
          await stream.writeSSE({ event: 'error', data: JSON.stringify(errorBody(appError)) });
        }
      } finally {
        clearInterval(heartbeat);
      }
    },
    async () => {},
  );
}
