/**
 * The documented REST `/api` surface: a compatibility layer over the services. Validation uses the
 * services' own zod schemas, which also generate /api/openapi.json, so the document cannot drift.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { AppError } from '../errors';
import { authenticateRequest, type HttpDeps } from '../http/authenticate-request';
import { zodErrorToAppError } from '../validation';
import type { HonoEnv } from './hono-env';
import { registerDocumentRoutes } from './routes/documents';
import { registerEvalRoutes } from './routes/evals';
import { registerIngestRoutes } from './routes/ingest';
import { registerKbRoutes } from './routes/kbs';
import { registerRagRoutes } from './routes/rag';
import { registerVoiceSettingsRoutes } from './routes/voice-settings';
import { clientIp } from '../http/client-ip';
import { registerWidgetDocs } from './routes/widget-docs';

const PUBLIC_PATHS = new Set(['/api/openapi.json']);
const MULTIPART_PATHS = new Set(['/api/ingest/upload']);

export function createRestApi(deps: HttpDeps) {
  const app = new OpenAPIHono<HonoEnv>({
    defaultHook: (result) => {
      if (!result.success) throw zodErrorToAppError(result.error);
    },
  });

  app.openAPIRegistry.registerComponent('securitySchemes', 'ApiKey', { type: 'apiKey', in: 'header', name: 'x-api-key' });

  app.use('*', async (c, next) => {
    if (PUBLIC_PATHS.has(c.req.path)) return next();
    c.set('svc', await authenticateRequest(deps, c.req.raw.headers, c.var.requestId, { receivedAt: c.var.receivedAt, clientIp: clientIp(c, deps.config.trustProxy) }));
    return next();
  });

  // Every body the JSON endpoints accept is JSON; anything else is refused before parsing. A request
  // with no content-type, no length and no chunked encoding has no body (curl -X DELETE, Node fetch,
  // Python urllib), whatever the server's Request object says.
  app.use('*', async (c, next) => {
    const hasBody =
      c.req.raw.body !== null &&
      (c.req.header('content-type') !== undefined || Number(c.req.header('content-length') ?? 0) > 0 || c.req.header('transfer-encoding') !== undefined);
    if (hasBody && !MULTIPART_PATHS.has(c.req.path) && !/^application\/(.+\+)?json\b/i.test(c.req.header('content-type') ?? '')) {
      throw new AppError('unsupported_media_type', 'Send the request body as JSON with content-type: application/json');
    }
    return next();
  });

  // Body sizes are limited for every transport at once, in src/http/body-limit.ts.

  registerKbRoutes(app);
  registerDocumentRoutes(app);
  registerIngestRoutes(app, deps.config.maxUploadBytes, deps.config.bulkUpload);
  registerRagRoutes(app);
  registerVoiceSettingsRoutes(app);
  registerEvalRoutes(app);

  registerWidgetDocs(app);

  // Paths as clients call them (with /api), and a server entry so tools resolve them against this host.
  app.get('/openapi.json', (c) => {
    const doc = app.getOpenAPI31Document({
      openapi: '3.1.0',
      info: {
        title: 'Groundwork API',
        version: '1.0.0',
        description:
          'Knowledge bases, ingestion, retrieval-augmented search and chat. Every endpoint needs the x-api-key header, except the widget endpoints (a widget token).',
      },
      servers: [{ url: new URL(c.req.url).origin, description: 'This server' }],
    });
    doc.paths = Object.fromEntries(Object.entries(doc.paths ?? {}).map(([path, item]) => [`/api${path}`, item]));
    return c.json(doc);
  });
  return app;
}
