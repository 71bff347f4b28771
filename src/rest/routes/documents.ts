/** /api/kbs/:id/documents: document listing (ingestion endpoints live in ingest.ts). */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { ZDocument } from '../../services/documents/document-dto';
import { listDocuments } from '../../services/documents/list-documents';
import type { HonoEnv } from '../hono-env';
import { errorResponses, security } from '../openapi';

// Service schemas are used as they are: zod 4 copies methods at construction, so `.openapi()` only
// exists on schemas built after @hono/zod-openapi loaded; components are inlined instead.
export const Document = ZDocument;
const ZKbParams = z.object({ id: z.string().openapi({ param: { name: 'id', in: 'path' } }) });

export function registerDocumentRoutes(app: OpenAPIHono<HonoEnv>) {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/kbs/{id}/documents',
      tags: ['Documents'],
      summary: 'List the documents of a knowledge base',
      security,
      request: { params: ZKbParams },
      responses: {
        200: { description: 'Documents', content: { 'application/json': { schema: z.object({ documents: z.array(Document) }) } } },
        ...errorResponses(404),
      },
    }),
    async (c) => c.json(await listDocuments(c.var.svc, { kb_id: c.req.valid('param').id }), 200),
  );
}
