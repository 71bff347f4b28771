/** /api/kbs/:id/evals: a KB's test set, its runs and their comparison (src/services/evals/). Parse, call the service, reshape. */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { compareEvalRuns, ZEvalComparison } from '../../services/evals/compare-eval-runs';
import { createEvalCase, ZCreateEvalCaseInput } from '../../services/evals/create-eval-case';
import { deleteEvalCase } from '../../services/evals/delete-eval-case';
import { EVAL_FILE_FORMATS } from '../../services/evals/eval-case-format';
import { ZEvalCase, ZEvalResult, ZEvalRun } from '../../services/evals/eval-dto';
import { getEvalSettings, updateEvalSettings, ZEvalSettings, ZUpdateEvalSettingsInput } from '../../services/evals/eval-settings';
import { EVAL_FILE_CONTENT_TYPES, exportEvalCases } from '../../services/evals/export-eval-cases';
import { importEvalCases, ZImportEvalCasesInput } from '../../services/evals/import-eval-cases';
import { listEvalCases } from '../../services/evals/list-eval-cases';
import { getEvalRun, listEvalRuns } from '../../services/evals/list-eval-runs';
import { startEvalRun, ZStartEvalRunInput } from '../../services/evals/start-eval-run';
import { ZUpdateEvalCaseInput } from '../../services/evals/update-eval-case';
import { updateEvalCase } from '../../services/evals/update-eval-case';
import type { HonoEnv } from '../hono-env';
import { errorResponses, security } from '../openapi';

const tags = ['Evals'];
const ZKbParams = z.object({ id: z.string().openapi({ param: { name: 'id', in: 'path' } }) });
const ZCaseParams = ZKbParams.extend({ caseId: z.string().openapi({ param: { name: 'caseId', in: 'path' } }) });
const ZRunParams = ZKbParams.extend({ runId: z.string().openapi({ param: { name: 'runId', in: 'path' } }) });
const json = <S extends z.ZodType>(description: string, schema: S) => ({ description, content: { 'application/json': { schema } } });
const body = <S extends z.ZodType>(schema: S) => ({ body: { required: true, content: { 'application/json': { schema } } } });
const OneCase = z.object({ case: ZEvalCase });
const OneRun = z.object({ run: ZEvalRun });

export function registerEvalRoutes(app: OpenAPIHono<HonoEnv>) {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/kbs/{id}/evals/cases',
      tags,
      summary: "The KB's eval cases (its test set), oldest first",
      security,
      request: { params: ZKbParams },
      responses: { 200: json('Cases', z.object({ cases: z.array(ZEvalCase) })), ...errorResponses(404) },
    }),
    async (c) => c.json(await listEvalCases(c.var.svc, { kb_id: c.req.valid('param').id }), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/kbs/{id}/evals/cases',
      tags,
      summary: 'Add an eval case: a question and what a good answer is, or `answerable: false`; `message_id` takes the question of a conversation turn',
      security,
      request: { params: ZKbParams, ...body(ZCreateEvalCaseInput.omit({ kb_id: true })) },
      responses: { 201: json('Created', OneCase), ...errorResponses(400, 404, 413, 415) },
    }),
    async (c) => c.json(await createEvalCase(c.var.svc, { ...c.req.valid('json'), kb_id: c.req.valid('param').id }), 201),
  );

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/kbs/{id}/evals/cases/{caseId}',
      tags,
      summary: 'Change an eval case; fields left out keep their value',
      security,
      request: { params: ZCaseParams, ...body(ZUpdateEvalCaseInput.omit({ kb_id: true, id: true })) },
      responses: { 200: json('The case', OneCase), ...errorResponses(400, 404, 413, 415) },
    }),
    async (c) => {
      const { id, caseId } = c.req.valid('param');
      return c.json(await updateEvalCase(c.var.svc, { ...c.req.valid('json'), kb_id: id, id: caseId }), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/kbs/{id}/evals/cases/{caseId}',
      tags,
      summary: 'Delete an eval case (runs that asked it keep their results)',
      security,
      request: { params: ZCaseParams },
      responses: { 200: json('Deleted', z.object({ success: z.boolean() })), ...errorResponses(404) },
    }),
    async (c) => {
      const { id, caseId } = c.req.valid('param');
      return c.json(await deleteEvalCase(c.var.svc, { kb_id: id, id: caseId }), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/kbs/{id}/evals/import',
      tags,
      summary: 'Import eval cases from JSONL or CSV (all or none; a problem names its line); `replace` swaps the whole set',
      security,
      request: { params: ZKbParams, ...body(ZImportEvalCasesInput.omit({ kb_id: true })) },
      responses: { 200: json('Imported', z.object({ imported: z.number().int(), cases: z.array(ZEvalCase) })), ...errorResponses(400, 404, 413, 415) },
    }),
    async (c) => c.json(await importEvalCases(c.var.svc, { ...c.req.valid('json'), kb_id: c.req.valid('param').id }), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/kbs/{id}/evals/export',
      tags,
      summary: 'The eval cases as a JSONL (default) or CSV file that import reads back',
      security,
      request: { params: ZKbParams, query: z.object({ format: z.enum(EVAL_FILE_FORMATS).optional() }) },
      responses: {
        200: { description: 'The file', content: { 'application/x-ndjson': { schema: z.string() }, 'text/csv': { schema: z.string() } } },
        ...errorResponses(400, 404),
      },
    }),
    async (c) => {
      const { format, content } = await exportEvalCases(c.var.svc, { kb_id: c.req.valid('param').id, ...c.req.valid('query') });
      return c.body(content, 200, { 'content-type': EVAL_FILE_CONTENT_TYPES[format], 'content-disposition': `attachment; filename="evals.${format}"` }) as never;
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/kbs/{id}/evals/settings',
      tags,
      summary: 'The top_k eval runs ask with, and the regression webhook',
      security,
      request: { params: ZKbParams },
      responses: { 200: json('Settings', z.object({ settings: ZEvalSettings })), ...errorResponses(404) },
    }),
    async (c) => c.json(await getEvalSettings(c.var.svc, { kb_id: c.req.valid('param').id }), 200),
  );

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/kbs/{id}/evals/settings',
      tags,
      summary: 'Change the eval top_k (starts a run when the KB has cases) or the regression webhook URL (null: none)',
      security,
      request: { params: ZKbParams, ...body(ZUpdateEvalSettingsInput.omit({ kb_id: true })) },
      responses: { 200: json('Settings', z.object({ settings: ZEvalSettings })), ...errorResponses(400, 404, 413, 415) },
    }),
    async (c) => c.json(await updateEvalSettings(c.var.svc, { ...c.req.valid('json'), kb_id: c.req.valid('param').id }), 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/kbs/{id}/evals/runs',
      tags,
      summary: 'Start a run of the test set (a background job); poll GET …/runs/{runId} for progress and figures',
      security,
      request: { params: ZKbParams, body: { required: false, content: { 'application/json': { schema: ZStartEvalRunInput.omit({ kb_id: true }) } } } },
      responses: { 202: json('Queued', OneRun), ...errorResponses(400, 404, 413, 415) },
    }),
    async (c) => c.json(await startEvalRun(c.var.svc, { ...(c.req.valid('json') ?? {}), kb_id: c.req.valid('param').id }), 202),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/kbs/{id}/evals/runs',
      tags,
      summary: "The KB's eval runs, newest first",
      security,
      request: { params: ZKbParams, query: z.object({ limit: z.coerce.number().int().min(1).max(200).optional() }) },
      responses: { 200: json('Runs', z.object({ runs: z.array(ZEvalRun) })), ...errorResponses(400, 404) },
    }),
    async (c) => c.json(await listEvalRuns(c.var.svc, { kb_id: c.req.valid('param').id, ...c.req.valid('query') }), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/kbs/{id}/evals/runs/{runId}',
      tags,
      summary: 'One run with its per-case results',
      security,
      request: { params: ZRunParams },
      responses: { 200: json('The run', z.object({ run: ZEvalRun, results: z.array(ZEvalResult) })), ...errorResponses(404) },
    }),
    async (c) => {
      const { id, runId } = c.req.valid('param');
      return c.json(await getEvalRun(c.var.svc, { kb_id: id, id: runId }), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/kbs/{id}/evals/runs/{runId}/compare',
      tags,
      summary: 'A run compared with another (`base`, default the completed run before it), case by case: better, worse, same',
      security,
      request: { params: ZRunParams, query: z.object({ base: z.string().min(1).optional() }) },
      responses: { 200: json('The comparison', ZEvalComparison), ...errorResponses(400, 404) },
    }),
    async (c) => {
      const { id, runId } = c.req.valid('param');
      const { base } = c.req.valid('query');
      return c.json(await compareEvalRuns(c.var.svc, { kb_id: id, run_id: runId, ...(base ? { base_id: base } : {}) }), 200);
    },
  );
}
