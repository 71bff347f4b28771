/**
 * The keyless widget endpoints in the OpenAPI document. They are served by routes/widget.ts (a
 * plain Hono app mounted before /api, so the API-key middleware never sees them); this only
 * describes them, from the same zod schemas their services validate with.
 */
import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { ZWidgetSessionInput } from '../../services/widget/start-widget-session';
import { ZWidgetChatInput, ZWidgetHistoryInput } from '../../services/widget/widget-chat';
import type { HonoEnv } from '../hono-env';
import { errorResponses } from '../openapi';

const widgetToken = [{ WidgetToken: [] }];

export function registerWidgetDocs(app: OpenAPIHono<HonoEnv>) {
  app.openAPIRegistry.registerComponent('securitySchemes', 'WidgetToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'The token POST /api/widget/session returns, sent as Authorization: Bearer <token> from the same Origin',
  });
  const json = (schema: z.ZodType) => ({ body: { required: true, content: { 'application/json': { schema } } } });
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/widget/session',
    tags: ['Widget'],
    summary: 'Start a widget session for an organisation and KB (no API key; the Origin must be allowed)',
    request: json(ZWidgetSessionInput),
    responses: {
      200: {
        description: 'A session token bound to the calling Origin',
        content: {
          'application/json': {
            schema: z.object({
              token: z.string(),
              expires_at: z.string(),
              kb: z.object({ id: z.string(), name: z.string() }),
              voice: z.object({ available: z.boolean() }),
            }),
          },
        },
      },
      ...errorResponses(400, 403, 404, 413, 415),
    },
  });
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/widget/chat',
    tags: ['Widget'],
    summary: 'Send a chat message from the widget; answers as server-sent events like /api/rag/chat with stream: true',
    security: widgetToken,
    request: json(ZWidgetChatInput),
    responses: { 200: { description: 'text/event-stream', content: { 'text/event-stream': { schema: z.string() } } }, ...errorResponses(400, 403, 404, 413, 415) },
  });
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/widget/history',
    tags: ['Widget'],
    summary: 'The messages of the widget session',
    security: widgetToken,
    request: json(ZWidgetHistoryInput),
    responses: {
      200: {
        description: 'The conversation so far',
        content: { 'application/json': { schema: z.object({ session_id: z.string(), messages: z.array(z.object({ role: z.string(), content: z.string(), citations: z.array(z.unknown()) })) }) } },
      },
      ...errorResponses(400, 403, 404, 413, 415),
    },
  });
}
