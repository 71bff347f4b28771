/** /api/kbs: the spec's knowledge-base endpoints. Parse, call the service, reshape: no logic here. */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { ZCreateKbInput } from '../../services/kbs/create-kb';
import { deleteKb } from '../../services/kbs/delete-kb';
import { getKb } from '../../services/kbs/get-kb';
import { ZKb } from '../../services/kbs/kb-dto';
import { listKbs } from '../../services/kbs/list-kbs';
import { createKb } from '../../services/kbs/create-kb';
import type { HonoEnv } from '../hono-env';
import { errorResponses, security } from '../openapi';

const ZKbParams = z.object({ id: z.string().openapi({ param: { name: 'id', in: 'path' }, example: 'kb_3kTMd9aQ0XW2mLzE7pJc' }) });
const Kb = ZKb;

export function registerKbRoutes(app: OpenAPIHono<HonoEnv>) {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/kbs',
      tags: ['Knowledge bases'],
      summary: 'List the organisation’s knowledge bases',
      security,
      responses: {
        200: { description: 'Knowledge bases', content: { 'application/json': { schema: z.object({ kbs: z.array(Kb) }) } } },
        ...errorResponses(),
      },
    }),
    async (c) => c.json(await listKbs(c.var.svc), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/kbs',
      tags: ['Knowledge bases'],
      summary: 'Create a knowledge base',
      security,
      request: { body: { required: true, content: { 'application/json': { schema: ZCreateKbInput } } } },
      responses: {
        201: { description: 'Created', content: { 'application/json': { schema: z.object({ kb: Kb }) } } },
        ...errorResponses(400, 403, 413, 415),
      },
    }),
    async (c) => c.json(await createKb(c.var.svc, c.req.valid('json')), 201),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/kbs/{id}',
      tags: ['Knowledge bases'],
      summary: 'Get one knowledge base',
      security,
      request: { params: ZKbParams },
      responses: {
        200: { description: 'The knowledge base', content: { 'application/json': { schema: z.object({ kb: Kb }) } } },
        ...errorResponses(404),
      },
    }),
    async (c) => c.json(await getKb(c.var.svc, { id: c.req.valid('param').id }), 200),
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/kbs/{id}',
      tags: ['Knowledge bases'],
      summary: 'Delete a knowledge base and all its documents',
      security,
      request: { params: ZKbParams },
      responses: {
        200: { description: 'Deleted', content: { 'application/json': { schema: z.object({ success: z.boolean() }) } } },
        ...errorResponses(404),
      },
    }),
    async (c) => c.json(await deleteKb(c.var.svc, { id: c.req.valid('param').id }), 200),
  );
}
