/** /api/kbs/:id/documents: listing, reading, deleting and re-ingesting documents. */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { deleteDocument } from '../../services/documents/delete-document';
import { ZDocument } from '../../services/documents/document-dto';
import { getDocument } from '../../services/documents/get-document';
import { listDocuments, MAX_DOCUMENT_PAGE } from '../../services/documents/list-documents';
import { reingestDocument } from '../../services/documents/reingest-document';
import { recrawlNow, setRecrawl, ZRecrawl } from '../../services/documents/recrawl-document';
import { updateChunk } from '../../services/documents/curate-chunk';
import { listChunks } from '../../services/documents/list-chunks';
import { listCrawlPages } from '../../services/documents/list-crawl-pages';
import { getUploadBatch, ZUploadBatch } from '../../services/documents/upload-batch';
import { setDocumentEnabled } from '../../services/documents/set-document-enabled';
import type { HonoEnv } from '../hono-env';
import { errorResponses, security } from '../openapi';

const ZKbParams = z.object({ id: z.string().openapi({ param: { name: 'id', in: 'path' } }) });
const ZDocParams = ZKbParams.extend({ docId: z.string().openapi({ param: { name: 'docId', in: 'path' } }) });
const One = z.object({ document: ZDocument });
const ZListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_DOCUMENT_PAGE).optional().openapi({ description: `Page size (1-${MAX_DOCUMENT_PAGE}); without it every document is returned` }),
  cursor: z.string().min(1).max(100).optional().openapi({ description: 'The next_cursor of the previous page' }),
  status: z.enum(['processing', 'ready', 'failed']).optional(),
});

const ZChunk = z.object({
  id: z.string(),
  position: z.number().int(),
  text: z.string(),
  heading_path: z.array(z.string()),
  page: z.number().int().nullable(),
  url: z.string().nullable(),
  token_count: z.number().int(),
  enabled: z.boolean().openapi({ description: 'False when switched off: kept, never retrieved' }),
  edited_at: z.string().nullable(),
  duplicates: z.number().int().openapi({ description: 'Other chunks of the KB with exactly this text' }),
});
const ZChunkParams = ZDocParams.extend({ chunkId: z.string().openapi({ param: { name: 'chunkId', in: 'path' } }) });
const ZCrawlPage = z.object({
  url: z.string(),
  title: z.string().nullable(),
  state: z.enum(['ready', 'skipped', 'failed']),
  chunks: z.number().int(),
  fetched_at: z.string().nullable(),
  changed_at: z.string().nullable(),
  last_change: z.enum(['added', 'changed', 'unchanged']).nullable(),
  reason: z.string().nullable(),
  detail: z.string().nullable(),
});

export function registerDocumentRoutes(app: OpenAPIHono<HonoEnv>) {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/kbs/{id}/batches/{batchId}',
      tags: ['Documents'],
      summary: "A bulk upload's progress: its documents, counts per status, overall percent and the per-file report",
      security,
      request: { params: ZKbParams.extend({ batchId: z.string().openapi({ param: { name: 'batchId', in: 'path' } }) }) },
      responses: { 200: { description: 'The batch', content: { 'application/json': { schema: z.object({ batch: ZUploadBatch }) } } }, ...errorResponses(404) },
    }),
    async (c) => {
      const { id, batchId } = c.req.valid('param');
      return c.json(await getUploadBatch(c.var.svc, { kb_id: id, id: batchId }), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/kbs/{id}/documents/{docId}/chunks',
      tags: ['Documents'],
      summary: "A document's chunks in reading order, optionally only those containing `q`",
      security,
      request: {
        params: ZDocParams,
        query: z.object({
          q: z.string().max(200).optional().openapi({ description: 'Only chunks containing this text (case-insensitive)' }),
          after: z.coerce.number().int().min(-1).optional().openapi({ description: 'The next_after of the previous page' }),
          limit: z.coerce.number().int().min(1).max(200).optional(),
        }),
      },
      responses: {
        200: { description: 'Chunks and the position to continue after (null on the last page)', content: { 'application/json': { schema: z.object({ chunks: z.array(ZChunk), next_after: z.number().int().nullable() }) } } },
        ...errorResponses(400, 404),
      },
    }),
    async (c) => {
      const { id, docId } = c.req.valid('param');
      const { q, ...page } = c.req.valid('query');
      return c.json(await listChunks(c.var.svc, { kb_id: id, id: docId, ...page, ...(q ? { query: q } : {}) }), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/kbs/{id}/documents/{docId}',
      tags: ['Documents'],
      summary: "Switch a whole document off or on (`enabled`: off, it is kept and listed but none of its chunks is retrieved), or change a URL document's re-crawl schedule (`recrawl`: daily, weekly or null)",
      security,
      request: {
        params: ZDocParams,
        body: {
          required: true,
          content: {
            'application/json': {
              schema: z
                .object({ enabled: z.boolean().optional(), recrawl: ZRecrawl.optional() })
                .strict()
                .refine((b) => b.enabled !== undefined || b.recrawl !== undefined, { message: 'give "enabled", "recrawl" or both' }),
            },
          },
        },
      },
      responses: { 200: { description: 'The document', content: { 'application/json': { schema: One } } }, ...errorResponses(400, 403, 404) },
    }),
    async (c) => {
      const { id, docId } = c.req.valid('param');
      const { enabled, recrawl } = c.req.valid('json');
      let answer = enabled !== undefined ? await setDocumentEnabled(c.var.svc, { kb_id: id, id: docId, enabled }) : null;
      if (recrawl !== undefined) answer = await setRecrawl(c.var.svc, { kb_id: id, id: docId, recrawl });
      return c.json(answer!, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/kbs/{id}/documents/{docId}/chunks/{chunkId}',
      tags: ['Documents'],
      summary: 'Switch a chunk off or on (`enabled`), or rewrite its `text` (re-embedded, marked edited)',
      security,
      request: {
        params: ZChunkParams,
        body: { required: true, content: { 'application/json': { schema: z.object({ enabled: z.boolean().optional(), text: z.string().optional() }).strict() } } },
      },
      responses: { 200: { description: 'The chunk', content: { 'application/json': { schema: z.object({ chunk: ZChunk }) } } }, ...errorResponses(400, 404, 409) },
    }),
    async (c) => {
      const { id, docId, chunkId } = c.req.valid('param');
      return c.json(await updateChunk(c.var.svc, { kb_id: id, id: docId, chunk_id: chunkId, ...c.req.valid('json') }), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/kbs/{id}/documents/{docId}/pages',
      tags: ['Documents'],
      summary: 'The pages of a crawled site (URL documents), failed ones first',
      security,
      request: { params: ZDocParams },
      responses: { 200: { description: 'Pages', content: { 'application/json': { schema: z.object({ pages: z.array(ZCrawlPage) }) } } }, ...errorResponses(400, 404) },
    }),
    async (c) => {
      const { id, docId } = c.req.valid('param');
      return c.json(await listCrawlPages(c.var.svc, { kb_id: id, id: docId }), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/kbs/{id}/documents',
      tags: ['Documents'],
      summary: 'List the documents of a knowledge base',
      security,
      request: { params: ZKbParams, query: ZListQuery },
      responses: {
        200: {
          description: 'Documents, newest first; with `limit`, one keyset page and the cursor of the next (null on the last page)',
          content: { 'application/json': { schema: z.object({ documents: z.array(ZDocument), next_cursor: z.string().nullable() }) } },
        },
        ...errorResponses(400, 404),
      },
    }),
    async (c) => c.json(await listDocuments(c.var.svc, { kb_id: c.req.valid('param').id, ...c.req.valid('query') }), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/kbs/{id}/documents/{docId}',
      tags: ['Documents'],
      summary: 'Get one document and its ingestion status',
      security,
      request: { params: ZDocParams },
      responses: { 200: { description: 'The document', content: { 'application/json': { schema: One } } }, ...errorResponses(404) },
    }),
    async (c) => {
      const { id, docId } = c.req.valid('param');
      return c.json(await getDocument(c.var.svc, { kb_id: id, id: docId }), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/kbs/{id}/documents/{docId}',
      tags: ['Documents'],
      summary: 'Delete a document and its chunks',
      security,
      request: { params: ZDocParams },
      responses: {
        200: { description: 'Deleted', content: { 'application/json': { schema: z.object({ success: z.boolean() }) } } },
        ...errorResponses(404),
      },
    }),
    async (c) => {
      const { id, docId } = c.req.valid('param');
      return c.json(await deleteDocument(c.var.svc, { kb_id: id, id: docId }), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/kbs/{id}/documents/{docId}/recrawl',
      tags: ['Documents'],
      summary: 'Re-crawl a URL document now (only changed pages are re-embedded; it stays answerable)',
      security,
      request: { params: ZDocParams },
      responses: { 202: { description: 'Queued', content: { 'application/json': { schema: One } } }, ...errorResponses(400, 404) },
    }),
    async (c) => {
      const { id, docId } = c.req.valid('param');
      return c.json(await recrawlNow(c.var.svc, { kb_id: id, id: docId }), 202);
    },
  );



  app.openapi(
    createRoute({
      method: 'post',
      path: '/kbs/{id}/documents/{docId}/reingest',
      tags: ['Documents'],
      summary: 'Ingest the document again (re-parse or re-crawl)',
      security,
      request: { params: ZDocParams },
      responses: { 202: { description: 'Accepted', content: { 'application/json': { schema: One } } }, ...errorResponses(404) },
    }),
    async (c) => {
      const { id, docId } = c.req.valid('param');
      return c.json(await reingestDocument(c.var.svc, { kb_id: id, id: docId }), 202);
    },
  );
}
