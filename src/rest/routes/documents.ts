/** /api/kbs/:id/documents: listing, reading, deleting and re-ingesting documents. */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { deleteDocument } from '../../services/documents/delete-document';
import { ZDocument } from '../../services/documents/document-dto';
import { getDocument } from '../../services/documents/get-document';
import { listDocuments, MAX_DOCUMENT_PAGE } from '../../services/documents/list-documents';
import { reingestDocument } from '../../services/documents/reingest-document';
import { recrawlNow, setRecrawl, ZRecrawl } from '../../services/documents/recrawl-document';
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

export function registerDocumentRoutes(app: OpenAPIHono<HonoEnv>) {
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
      method: 'patch',
      path: '/kbs/{id}/documents/{docId}',
      tags: ['Documents'],
      summary: "Change a URL document's re-crawl schedule (daily, weekly or null)",
      security,
      request: { params: ZDocParams, body: { required: true, content: { 'application/json': { schema: z.object({ recrawl: ZRecrawl }).strict() } } } },
      responses: { 200: { description: 'The document', content: { 'application/json': { schema: One } } }, ...errorResponses(400, 404) },
    }),
    async (c) => {
      const { id, docId } = c.req.valid('param');
      return c.json(await setRecrawl(c.var.svc, { kb_id: id, id: docId, recrawl: c.req.valid('json').recrawl }), 200);
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
