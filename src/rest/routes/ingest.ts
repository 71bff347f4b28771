/**
 * /api/ingest/*: upload a file or a URL to crawl. Both answer 202 with the document in processing;
 * an upload the KB already has (same bytes) answers 200 with that document and `duplicate: true`.
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { AppError } from '../../errors';
import { booleanField, readMultipart } from '../../http/read-multipart';
import { ZDocument } from '../../services/documents/document-dto';
import { ingestUpload } from '../../services/documents/ingest-upload';
import { ingestUploads, isSingleDocumentUpload, ZUploadReport } from '../../services/documents/ingest-uploads';
import { ingestUrl, ZIngestUrlInput } from '../../services/documents/ingest-url';
import type { HonoEnv } from '../hono-env';
import { errorResponses, security } from '../openapi';

const Accepted = z.object({ document: ZDocument });
const Duplicate = z.object({
  document: ZDocument,
  duplicate: z.literal(true).openapi({ description: 'The KB already had a document with this very file (sha256 of its bytes): `document` is that one and nothing new was stored' }),
  replaced: z.boolean().openapi({ description: 'With `replace=true`, that document is being ingested again' }),
});
const AcceptedMany = z.object({
  documents: z.array(ZDocument),
  files: z.array(ZUploadReport),
  batch_id: z.string().openapi({ description: 'The batch: its progress is GET /api/kbs/{id}/batches/{batch_id}' }),
});

export function registerIngestRoutes(app: OpenAPIHono<HonoEnv>, maxUploadBytes: number, bulk: { maxFiles: number; maxRequestBytes: number }) {
  // Documented through the registry but handled by a plain route: the route validator would read the
  // whole body before the handler, and the size limit must apply while the upload streams in.
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/ingest/upload',
    tags: ['Documents'],
    summary: 'Upload PDF, DOCX, TXT or MD files (or a ZIP of them) for ingestion',
    description:
      `multipart/form-data with \`kb_id\` and one or more \`file\` parts. The type is detected from the content. Limit ${Math.round(maxUploadBytes / 1048576)} MB per file, ` +
      `${bulk.maxFiles} files and ${Math.round(bulk.maxRequestBytes / 1048576)} MB per request. One document file answers \`{document}\`; several files or a ZIP answer ` +
      '`{documents, files}` where `files` reports each file as accepted, duplicate, replaced, refused (with the reason) or skipped. ' +
      'A file whose bytes match a document of the KB is not stored again: it answers that document as `duplicate` (200 when nothing new is ingested); ' +
      'the form field `replace=true` ingests that document again instead.',
    security,
    request: {
      body: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: z.object({
              file: z.string().openapi({ type: 'string', format: 'binary' }),
              kb_id: z.string(),
              replace: z.enum(['true', 'false']).optional().openapi({ description: 'true: a file the KB already has is ingested again into its document (default false: answered as duplicate)' }),
            }),
          },
        },
      },
    },
    responses: {
      200: { description: 'Every file is a duplicate of a document of the KB; nothing new is ingested', content: { 'application/json': { schema: z.union([Duplicate, AcceptedMany]) } } },
      202: { description: 'Accepted; ingestion runs in the background', content: { 'application/json': { schema: z.union([Accepted, Duplicate, AcceptedMany]) } } },
      ...errorResponses(400, 403, 404, 413, 415),
    },
  });
  app.post('/ingest/upload', async (c) => {
    const { fields, files: parts } = await readMultipart(c.req.raw, {
      maxFileBytes: maxUploadBytes,
      maxFiles: bulk.maxFiles,
      maxTotalBytes: bulk.maxRequestBytes,
    });
    const files = parts.filter((f) => f.field === 'file');
    if (files.length === 0) throw new AppError('invalid_input', '"file" is required', { field: 'file' });
    if (!fields.kb_id) throw new AppError('invalid_input', '"kb_id" is required', { field: 'kb_id' });
    if (files.length === 1 && files[0]!.tooLarge) {
      throw new AppError('payload_too_large', `The file exceeds the upload limit of ${Math.round(maxUploadBytes / (1024 * 1024))} MB`, { field: 'file' });
    }
    const replace = booleanField(fields.replace, 'replace');
    if (isSingleDocumentUpload(files)) {
      const one = await ingestUpload(c.var.svc, { kb_id: fields.kb_id, filename: files[0]!.filename, bytes: files[0]!.bytes, replace });
      return c.json(one, 'duplicate' in one && !one.replaced ? 200 : 202);
    }
    const many = await ingestUploads(c.var.svc, { kb_id: fields.kb_id, files, replace });
    return c.json(many, many.documents.length > 0 ? 202 : 200);
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
