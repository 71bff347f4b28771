/** /api/ingest/*: upload a file or a URL to crawl. Both answer 202 with the document in processing. */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { AppError } from '../../errors';
import { readMultipart } from '../../http/read-multipart';
import { ZDocument } from '../../services/documents/document-dto';
import { ingestUpload } from '../../services/documents/ingest-upload';
import { ingestUrl, ZIngestUrlInput } from '../../services/documents/ingest-url';
import type { HonoEnv } from '../hono-env';
import { errorResponses, security } from '../openapi';

const Accepted = z.object({ document: ZDocument });

export function registerIngestRoutes(app: OpenAPIHono<HonoEnv>, maxUploadBytes: number) {
  // Documented through the registry but handled by a plain route: the route validator would read the
  // whole body before the handler, and the size limit must apply while the upload streams in.
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/ingest/upload',
    tags: ['Documents'],
    summary: 'Upload a PDF, DOCX, TXT or MD file for ingestion',
    description: `multipart/form-data with \`file\` and \`kb_id\`. The type is detected from the content. Limit ${Math.round(maxUploadBytes / 1048576)} MB.`,
    security,
    request: {
      body: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: z.object({ file: z.string().openapi({ type: 'string', format: 'binary' }), kb_id: z.string() }),
          },
        },
      },
    },
    responses: {
      202: { description: 'Accepted; ingestion runs in the background', content: { 'application/json': { schema: Accepted } } },
      ...errorResponses(400, 403, 404, 413, 415),
    },
  });
  app.post('/ingest/upload', async (c) => {
    const { fields, files } = await readMultipart(c.req.raw, { maxFileBytes: maxUploadBytes });
    const file = files.find((f) => f.field === 'file');
    if (!file) throw new AppError('invalid_input', '"file" is required', { field: 'file' });
    if (!fields.kb_id) throw new AppError('invalid_input', '"kb_id" is required', { field: 'kb_id' });
    const result = await ingestUpload(c.var.svc, { kb_id: fields.kb_id, filename: file.filename, bytes: file.bytes });
    return c.json(result, 202);
  });

  app.openapi(
    createRoute({
      method: 'post',
      path: '/ingest/url',
      tags: ['Documents'],
      summary: 'Crawl a public URL (same site) and ingest its pages as one document',
      security,
      request: { body: { required: true, content: { 'application/json': { schema: ZIngestUrlInput } } } },
      responses: {
        202: { description: 'Accepted; the crawl runs in the background', content: { 'application/json': { schema: Accepted } } },
        ...errorResponses(400, 403, 404, 413, 415),
      },
    }),
    async (c) => c.json(await ingestUrl(c.var.svc, c.req.valid('json')), 202),
  );
}
