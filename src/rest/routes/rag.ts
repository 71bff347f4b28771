/** /api/rag/*: single-shot search and multi-turn chat, as JSON or as server-sent events. */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { collectChat, startChat, ZChatInput, type ChatEvent } from '../../services/chat/send-chat-message';
import { collectSearchResponse, ZCitation } from '../../services/rag/answer-events';
import { startSearch, ZSearchInput } from '../../services/rag/search';
import type { HonoEnv } from '../hono-env';
import { errorResponses, security } from '../openapi';
import { sseResponse } from '../sse';

const SSE_DESCRIPTION =
  'With `stream: true`: text/event-stream with events `citations`, `delta` (repeated), then `done` (or `error`); chat sends `session` first.';

/**
 * Both endpoints: start the service's event stream (errors before the first event stay ordinary JSON
 * errors), then either forward it as SSE or collect it into the JSON body. A client that goes away
 * aborts generation.
 */
async function answer<E extends ChatEvent, R>(
  c: Context<HonoEnv>,
  stream: boolean | undefined,
  start: (signal: AbortSignal) => Promise<AsyncIterable<E>>,
  collect: (events: AsyncIterable<E>) => Promise<R>,
) {
  const abort = new AbortController();
  c.req.raw.signal?.addEventListener('abort', () => abort.abort());
  const events = await start(abort.signal);
  if (stream) return sseResponse(c, abort, events, { heartbeatMs: c.var.svc.config.sseHeartbeatMs }) as never;
  return c.json(await collect(events), 200);
}

export function registerRagRoutes(app: OpenAPIHono<HonoEnv>) {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/rag/search',
      tags: ['Answers'],
      summary: 'Answer a question from one knowledge base, with citations',
      description: SSE_DESCRIPTION,
      security,
      request: { body: { required: true, content: { 'application/json': { schema: ZSearchInput } } } },
      responses: {
        200: {
          description: 'The answer',
          content: {
            'application/json': { schema: z.object({ answer: z.string(), citations: z.array(ZCitation), refused: z.boolean() }) },
            'text/event-stream': { schema: z.string() },
          },
        },
        ...errorResponses(400, 404, 413, 415, 503),
      },
    }),
    async (c) => answer(c, c.req.valid('json').stream, (signal) => startSearch(c.var.svc, c.req.valid('json'), signal), collectSearchResponse),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/rag/chat',
      tags: ['Answers'],
      summary: 'Send a chat message; memory is kept per session_id',
      description: SSE_DESCRIPTION,
      security,
      request: { body: { required: true, content: { 'application/json': { schema: ZChatInput } } } },
      responses: {
        200: {
          description: 'The reply',
          content: {
            'application/json': { schema: z.object({ response: z.string(), session_id: z.string(), citations: z.array(ZCitation), refused: z.boolean() }) },
            'text/event-stream': { schema: z.string() },
          },
        },
        ...errorResponses(400, 404, 413, 415, 503),
      },
    }),
    async (c) => answer(c, c.req.valid('json').stream, (signal) => startChat(c.var.svc, c.req.valid('json'), signal), collectChat),
  );
}
