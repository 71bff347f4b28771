/**
 * The background half of a bulk upload: files the request stored whole but had no time to turn
 * into documents (src/services/documents/ingest-uploads.ts) become documents here, ADMIT_TURN at a
 * time per job run in the organisation's own job lane, so a folder of hundreds of files takes turns
 * with other organisations' work instead of holding a worker (or the request) until it is done.
 *
 * Each file is judged exactly as in the request (type, size, the plan's document limit, counted
 * when its document is created) and its entry in the batch's report changes from `queued` to
 * `accepted` with its document id, `duplicate` with the KB's document of the same bytes, or
 * `refused` with the reason.
 */
import { sql } from 'kysely';
import type { AppDeps, ServiceContext } from '../../context';
import { createContext } from '../../context';
import { AppError } from '../../errors';
import type { BatchId } from '../../ids';
import type { UploadReport } from '../../../db/json-columns';
import { acceptFile } from './ingest-upload';
import { authorize } from '../access/roles';

/** Files made into documents per job run before the batch yields its lane. */
export const ADMIT_TURN = 10;
/** Bytes of staged files written per statement (the embedded database runs one statement at a time). */
const STAGE_STATEMENT_BYTES = 8 * 1024 * 1024;

export type StagedFile = { reportIndex: number; filename: string; bytes: Buffer };

/** Stores the files with the batch and queues their admission, in one transaction on PostgreSQL. */
export async function stageFiles(ctx: ServiceContext, batchId: BatchId, files: StagedFile[]): Promise<void> {
  authorize(ctx, 'document.write');
  if (files.length === 0) return;
  await ctx.db.transaction().execute(async (trx) => {
    let group: StagedFile[] = [];
    let bytes = 0;
    const flush = async () => {
      if (group.length === 0) return;
      await trx
        .insertInto('upload_staged_files')
        .values(group.map((f) => ({ batch_id: batchId, report_index: f.reportIndex, filename: f.filename, bytes: f.bytes })))
        .execute();
      group = [];
      bytes = 0;
    };
    for (const f of files) {
      if (bytes + f.bytes.length > STAGE_STATEMENT_BYTES) await flush();
      group.push(f);
      bytes += f.bytes.length;
    }
    await flush();
    await queueAdmission(ctx, trx, batchId);
  });
}

function queueAdmission(deps: Pick<AppDeps, 'jobs'>, db: AppDeps['db'], batchId: BatchId, orgId?: string) {
  const org = orgId ?? (deps as ServiceContext).org.id;
  return deps.jobs.enqueueOrg(db, 'uploads__admit', { batch_id: batchId }, { orgId: org, documentId: batchId });
}

/** One turn of a batch's admission; queues the next turn when files remain. */
export async function admitStagedUploads(deps: AppDeps, batchId: BatchId): Promise<{ admitted: number; remaining: boolean }> {
  const batch = await deps.db.selectFrom('upload_batches').select(['id', 'org_id', 'kb_id']).where('id', '=', batchId).executeTakeFirst();
  if (!batch) return { admitted: 0, remaining: false }; // deleted with its KB: its staged files went with it
  const org = await deps.db.selectFrom('organizations').selectAll().where('id', '=', batch.org_id).executeTakeFirst();
  const kb = await deps.db.selectFrom('knowledge_bases').selectAll().where('id', '=', batch.kb_id).executeTakeFirst();
  if (!org || !kb) return { admitted: 0, remaining: false };
  const ctx = createContext(deps, org, { requestId: `admit:${batchId}` });
  const staged = await deps.db
    .selectFrom('upload_staged_files')
    .selectAll()
    .where('batch_id', '=', batchId)
    .orderBy('report_index')
    .limit(ADMIT_TURN + 1)
    .execute();
  let admitted = 0;
  for (const file of staged.slice(0, ADMIT_TURN)) {
    let entry: UploadReport;
    try {
      const { document, duplicate } = await acceptFile(ctx, kb, file.filename, file.bytes, { batchId });
      entry = { filename: duplicate ? file.filename : document.filename, status: duplicate ? 'duplicate' : 'accepted', document_id: document.id, error: null };
      if (!duplicate) admitted++;
    } catch (err) {
      if (!(err instanceof AppError) || err.code === 'internal_error' || err.code === 'rate_limited' || err.code === 'unavailable') throw err;
      entry = { filename: file.filename, status: 'refused', document_id: null, error: { code: err.code, message: err.message } };
    }
    await deps.db.transaction().execute(async (trx) => {
      await sql`update upload_batches set files = jsonb_set(files, array[${String(file.report_index)}]::text[], ${JSON.stringify(entry)}::jsonb)
        where id = ${batchId}`.execute(trx);
      await trx.deleteFrom('upload_staged_files').where('batch_id', '=', batchId).where('report_index', '=', file.report_index).execute();
    });
  }
  const remaining = staged.length > ADMIT_TURN;
  if (remaining) await queueAdmission(deps, deps.db, batchId, org.id);
  return { admitted, remaining };
}

/** Files of a batch still waiting to become documents. */
export async function stagedCount(ctx: Pick<ServiceContext, 'db'>, batchId: BatchId): Promise<number> {
  const { n } = await ctx.db
    .selectFrom('upload_staged_files')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('batch_id', '=', batchId)
    .executeTakeFirstOrThrow();
  return Number(n);
}
