/** /api/rag/*: single-shot search and multi-turn chat, as JSON or as server-sent events. */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { collectChat, startChat, ZChatInput } from '../../services/chat/send-chat-message';
import { collectAnswer } from '../../services/rag/answer-stream';
import { ZCitation } from '../../services/rag/citations';
import { startSearch, ZSearchInput } from '../../services/rag/search';
import type { HonoEnv } from '../hono-env';
import { errorResponses, security } from '../openapi';
import { sseResponse } from '../sse';

const SSE_DESCRIPTION =
  'With `stream: true`: text/event-stream with events `citations`, `delta` (repeated), then `done` (or `error`); chat sends `session` first.';

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
            'application/json': { schema: z.object({ answer: z.string(), citations: z.array(ZCitation) }) },
            'text/event-stream': { schema: z.string() },
          },
        },
        ...errorResponses(400, 404, 413, 415, 503),
      },
    }),
    async (c) => {
      const input = c.req.valid('json');
      const abort = new AbortController();
      c.req.raw.signal?.addEventListener('abort', () => abort.abort());
      const events = await startSearch(c.var.svc, input, abort.signal);
      if (input.stream) return sseResponse(c, abort, events, { heartbeatMs: c.var.svc.config.sseHeartbeatMs }) as never;
      return c.json(await collectAnswer(events), 200);
    },
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
            'application/json': { schema: z.object({ response: z.string(), session_id: z.string(), citations: z.array(ZCitation) }) },
            'text/event-stream': { schema: z.string() },
          },
        },
        ...errorResponses(400, 404, 413, 415, 503),
      },
    }),
    async (c) => {
      const input = c.req.valid('json');
      const abort = new AbortController();
      c.req.raw.signal?.addEventListener('abort', () => abort.abort());
      const events = await startChat(c.var.svc, input, abort.signal);
      if (input.stream) return sseResponse(c, abort, events, { heartbeatMs: c.var.svc.config.sseHeartbeatMs }) as never;
      return c.json(await collectChat(events), 200);
    },
  );
}
