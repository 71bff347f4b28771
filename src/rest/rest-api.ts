/**
 * The documented REST `/api` surface: a compatibility layer over the services. Validation uses the
 * services' own zod schemas, which also generate /api/openapi.json, so the document cannot drift.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { AppError } from '../errors';
import { authenticateRequest, type HttpDeps } from '../http/authenticate-request';
import { zodErrorToAppError } from '../validation';
import type { HonoEnv } from './hono-env';
import { registerDocumentRoutes } from './routes/documents';
import { registerIngestRoutes } from './routes/ingest';
import { registerKbRoutes } from './routes/kbs';
import { registerRagRoutes } from './routes/rag';

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
    c.set('svc', await authenticateRequest(deps, c.req.raw.headers, c.var.requestId));
    return next();
  });

  // Every body the JSON endpoints accept is JSON; anything else is refused before parsing.
  app.use('*', async (c, next) => {
    const hasBody = c.req.raw.body !== null && c.req.header('content-length') !== '0';
    if (hasBody && !MULTIPART_PATHS.has(c.req.path) && !/^application\/(.+\+)?json\b/i.test(c.req.header('content-type') ?? '')) {
      throw new AppError('unsupported_media_type', 'Send the request body as JSON with content-type: application/json');
    }
    return next();
  });

  // JSON bodies are small; uploads have their own streaming limit.
  const jsonLimit = bodyLimit({
    maxSize: deps.config.maxJsonBytes,
    onError: () => {
      throw new AppError('payload_too_large', `Request body exceeds ${deps.config.maxJsonBytes} bytes`);
    },
  });
  app.use('*', async (c, next) => (MULTIPART_PATHS.has(c.req.path) ? next() : jsonLimit(c, next)));

  registerKbRoutes(app);
  registerDocumentRoutes(app);
  registerIngestRoutes(app, deps.config.maxUploadBytes, deps.config.bulkUpload);
  registerRagRoutes(app);

  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Groundwork API',
      version: '1.0.0',
      description: 'Knowledge bases, ingestion, retrieval-augmented search and chat. Every endpoint needs the x-api-key header.',
    },
  });
  return app;
}
