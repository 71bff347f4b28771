/**
 * The one way a document comes into existence: plan limit checked under the organisation's lock,
 * the row, its original bytes and its ingestion job written in one transaction (on the embedded
 * database, one statement: insertDocumentAtOnce). A refused or failed request stores nothing; an
 * accepted one is never lost.
 *
 * On the embedded database a file of more than one part is the exception (issue 26): a transaction
 * holds its one session for every statement in it, and writing a 20 MB file's parts inside one held
 * it for 0.8–1.3 s, while every other organisation's query waited. There the statement writes the
 * row and a job held back by UNFINISHED_UPLOAD_GUARD_MS; the parts follow, a statement each, and the
 * job is then released to run now. A request that fails meanwhile deletes what it wrote; a process
 * that dies meanwhile leaves a job that runs after the guard, finds the file incomplete and marks
 * the document failed (run-ingestion.ts), so nothing stays "processing" for ever.
 */
import { sql } from 'kysely';
import type { ServiceContext } from '../../context';
import type { DocumentRow, DocumentSource, KnowledgeBase, PlanName } from '../../../db/types';
import { AppError } from '../../errors';
import { newId, type BatchId } from '../../ids';
import { withOrgShare } from '../org-share';
import { lockOrg } from '../orgs/lock-org';
import { PLAN_NAMES, planLimits } from '../plans';
import { FILE_PART_BYTES, writeDocumentFile } from './document-file';
import { toDocumentDto, type DocumentDto } from './document-dto';
import { recordAudit } from '../audit/record-audit';

export type NewDocument = {
  kb: KnowledgeBase;
  source: DocumentSource;
  filename: string;
  contentType: string | null;
  bytes?: Buffer;
  crawlOptions?: Record<string, unknown>;
  recrawl?: 'daily' | 'weekly' | null;
  /** The bulk upload that brings it (src/services/documents/upload-batch.ts). */
  batchId?: BatchId;
  /** sha256 (hex) of an upload's bytes: a document of the KB with the same one is returned instead of a new one. */
  contentHash?: string;
};

/** The new document, or (`duplicate`) the KB's document whose file has the same content hash. */
export type CreatedDocument = { document: DocumentDto; duplicate: boolean };


export const ingestJobKey = (documentId: string) => `ingest:${documentId}`;

/** How long an upload's job waits for its file's parts before it runs anyway (and fails it as incomplete). */
export const UNFINISHED_UPLOAD_GUARD_MS = 10 * 60_000;

export async function createDocument(ctx: ServiceContext, doc: NewDocument): Promise<CreatedDocument> {
  const partsApart = ctx.config.database.kind === 'embedded' && (doc.bytes?.length ?? 0) > FILE_PART_BYTES;
  const { row, duplicate } = await withOrgShare(ctx, async () => {
    const inserted = await (ctx.config.database.kind === 'embedded' ? insertDocumentAtOnce : insertDocument)(ctx, doc, partsApart);
    if (partsApart && !inserted.duplicate) await writePartsApart(ctx, inserted.row, doc.bytes!);
    return inserted;
  });
  if (duplicate) ctx.logger.info({ documentId: row.id, kbId: row.kb_id }, 'upload is a duplicate of a document of the KB');
  else ctx.logger.info({ documentId: row.id, kbId: row.kb_id, source: row.source }, 'document accepted for ingestion');
  if (!duplicate) await recordAudit(ctx, { action: 'document.create', targetType: 'document', targetId: row.id, changes: { kb_id: row.kb_id, source: row.source, filename: row.filename } });
  return { document: toDocumentDto(row), duplicate };
}

/** The KB's document whose file has this content hash (the oldest, should older data hold several). */
function findByContentHash(db: ServiceContext['db'], doc: NewDocument) {
  return db
    .selectFrom('documents')
    .selectAll()
    .where('kb_id', '=', doc.kb.id)
    .where('content_hash', '=', doc.contentHash!)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}

/** The row, its job, and unless `partsApart` its file, in one transaction under the organisation's lock. */
async function insertDocument(ctx: ServiceContext, doc: NewDocument, partsApart: boolean): Promise<{ row: DocumentRow; duplicate: boolean }> {
  return ctx.db.transaction().execute(async (trx) => {
    const org = await lockOrg(trx, ctx.org.id);
    // Under the organisation's lock, so two identical uploads at once still make one document.
    const existing = doc.contentHash ? await findByContentHash(trx, doc) : undefined;
    if (existing) return { row: existing, duplicate: true };
    const limit = planLimits(org.plan).maxDocuments;
    const { count } = await trx
      .selectFrom('documents')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('org_id', '=', org.id)
      .executeTakeFirstOrThrow();
    if (count >= limit) throw planLimitExceeded(org.plan);
    const now = new Date();
    const inserted = await trx
      .insertInto('documents')
      .values({
        id: newId('doc'),
        org_id: org.id,
        kb_id: doc.kb.id,
        source: doc.source,
        filename: doc.filename,
        content_type: doc.contentType,
        size_bytes: doc.bytes?.length ?? null,
        status: 'processing',
        crawl_options: doc.crawlOptions ? JSON.stringify(doc.crawlOptions) : null,
        recrawl: doc.recrawl ?? null,
        batch_id: doc.batchId ?? null,
        content_hash: doc.contentHash ?? null,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    if (doc.bytes && !partsApart) await writeDocumentFile(trx, inserted.id, doc.bytes);
    const runAt = partsApart ? new Date(Date.now() + UNFINISHED_UPLOAD_GUARD_MS) : undefined;
    await ctx.jobs.enqueueOrg(trx, 'documents__ingest', { document_id: inserted.id }, { jobKey: ingestJobKey(inserted.id), orgId: org.id, documentId: inserted.id, runAt });
    return { row: inserted, duplicate: false };
  });
}

/**
 * insertDocument's work as one statement, for the embedded database. A transaction there holds the
 * one session from BEGIN to COMMIT, round trips included, and the web thread that drives it is
 * the busy one under load: creating a ZIP's documents held the session 150–540 ms a document (7
 * round trips each) while other organisations' queries waited (issue 26). One statement holds it
 * for its run alone (~5 ms). It is atomic, and the count it checks cannot go stale: the embedded
 * database runs statements one at a time. Not on PostgreSQL, where a concurrent create could commit
 * after this statement's snapshot and the plan limit be passed: there the transaction stays.
 */
async function insertDocumentAtOnce(ctx: ServiceContext, doc: NewDocument, partsApart: boolean): Promise<{ row: DocumentRow; duplicate: boolean }> {
  const id = newId('doc');
  const now = new Date();
  const maxDocuments = JSON.stringify(Object.fromEntries(PLAN_NAMES.map((plan) => [plan, planLimits(plan).maxDocuments])));
  const file = doc.bytes && !partsApart ? doc.bytes : null;
  const job = ctx.jobs.orgJobCall('documents__ingest', { document_id: id }, {
    jobKey: ingestJobKey(id),
    orgId: ctx.org.id,
    documentId: id,
    runAt: partsApart ? new Date(Date.now() + UNFINISHED_UPLOAD_GUARD_MS) : undefined,
  });
  const { rows } = await sql<DocumentRow>`
    with org as (
      select id, plan from organizations where id = ${ctx.org.id} for update
    ), admitted as (
      select org.id from org
      where (select count(*) from documents where org_id = org.id) < (${maxDocuments}::jsonb ->> org.plan)::int
        and not exists (select 1 from documents where kb_id = ${doc.kb.id} and content_hash = ${doc.contentHash ?? null}::text)
    ), doc as (
      insert into documents (id, org_id, kb_id, source, filename, content_type, size_bytes, status, crawl_options, recrawl, batch_id, content_hash, created_at, updated_at)
      select ${id}, admitted.id, ${doc.kb.id}, ${doc.source}, ${doc.filename}, ${doc.contentType}::text, ${doc.bytes?.length ?? null}::bigint,
        'processing', ${doc.crawlOptions ? JSON.stringify(doc.crawlOptions) : null}::jsonb, ${doc.recrawl ?? null}::text, ${doc.batchId ?? null}::text,
        ${doc.contentHash ?? null}::text, ${now}::timestamptz, ${now}::timestamptz
      from admitted
      returning *
    ), file as (
      insert into document_files (document_id, part, bytes) select doc.id, 0, ${file}::bytea from doc where ${file}::bytea is not null
    ), job as (
      select ${job} from doc
    )
    select doc.* from doc where (select count(*) from job) = 1`.execute(ctx.db);
  if (rows[0]) return { row: rows[0], duplicate: false };
  // Nothing inserted: the KB has this file already, or the plan's limit is reached.
  const existing = doc.contentHash ? await findByContentHash(ctx.db, doc) : undefined;
  if (existing) return { row: existing, duplicate: true };
  const org = await ctx.db.selectFrom('organizations').select('plan').where('id', '=', ctx.org.id).executeTakeFirstOrThrow();
  throw planLimitExceeded(org.plan);
}

/** Writes the file a part per statement, then lets the held-back job run; on failure removes both. */
async function writePartsApart(ctx: ServiceContext, inserted: DocumentRow, bytes: Buffer): Promise<void> {
  const job = { jobKey: ingestJobKey(inserted.id), orgId: inserted.org_id, documentId: inserted.id };
  try {
    await writeDocumentFile(ctx.db, inserted.id, bytes);
    // Same key: graphile-worker replaces the held-back job's run_at with now.
    await ctx.jobs.enqueueOrg(ctx.db, 'documents__ingest', { document_id: inserted.id }, job);
  } catch (err) {
    await ctx.db.transaction().execute(async (trx) => {
      await sql`select graphile_worker.remove_job(${job.jobKey})`.execute(trx);
      await trx.deleteFrom('documents').where('id', '=', inserted.id).execute();
    }).catch((cleanup: unknown) => ctx.logger.error({ err: cleanup, documentId: inserted.id }, 'could not remove a partly stored upload; its job will fail it'));
    throw err;
  }
}

export function planLimitExceeded(plan: PlanName): AppError {
  const limit = planLimits(plan).maxDocuments;
  return new AppError('plan_limit_exceeded', `The ${plan} plan allows ${limit} documents; delete some or upgrade the plan`, { limit, plan });
}
