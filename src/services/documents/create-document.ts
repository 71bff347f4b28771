/**
 * The one way a document comes into existence: plan limit checked under the organisation's lock,
 * the row, its original bytes and its ingestion job written in one transaction. A refused or
 * failed request stores nothing; an accepted one is never lost.
 */
import type { ServiceContext } from '../../context';
import type { DocumentSource, KnowledgeBase } from '../../../db/types';
import { AppError } from '../../errors';
import { newId, type BatchId } from '../../ids';
import { enqueueOrgJob } from '../../jobs/enqueue';
import { withOrgShare } from '../org-share';
import { lockOrg } from '../orgs/lock-org';
import { planLimits } from '../plans';
import { writeDocumentFile } from './document-file';
import { toDocumentDto, type DocumentDto } from './document-dto';

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
};

export const ingestJobKey = (documentId: string) => `ingest:${documentId}`;

export async function createDocument(ctx: ServiceContext, doc: NewDocument): Promise<DocumentDto> {
  const row = await withOrgShare(ctx, () => ctx.db.transaction().execute(async (trx) => {
    const org = await lockOrg(trx, ctx.org.id);
    const limit = planLimits(org.plan).maxDocuments;
    const { count } = await trx
      .selectFrom('documents')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('org_id', '=', org.id)
      .executeTakeFirstOrThrow();
    if (count >= limit) {
      throw new AppError('plan_limit_exceeded', `The ${org.plan} plan allows ${limit} documents; delete some or upgrade the plan`, {
        limit,
        plan: org.plan,
      });
    }
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
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    if (doc.bytes) await writeDocumentFile(trx, inserted.id, doc.bytes);
    await enqueueOrgJob(trx, 'documents__ingest', { document_id: inserted.id }, { jobKey: ingestJobKey(inserted.id), orgId: org.id, documentId: inserted.id });
    return inserted;
  }));
  ctx.logger.info({ documentId: row.id, kbId: row.kb_id, source: row.source }, 'document accepted for ingestion');
  return toDocumentDto(row);
}
