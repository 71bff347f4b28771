/**
 * A bulk upload's batch (issue #26): created with the upload, its id returned with each document's,
 * and its progress read back by id on every transport through getUploadBatch. A batch is its KB's:
 * another organisation's key (or another KB's id) gets "not found", exactly like an unknown id.
 *
 * Progress is read from the batch's documents as they are now: counts per status, and an overall
 * percent in which a settled document (ready or failed) counts whole and a processing one by its
 * own progress (pages parsed or chunks embedded). A document deleted since leaves the counts.
 */
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import type { KnowledgeBase } from '../../../db/types';
import { notFound } from '../../errors';
import { isIdOf, newId, type BatchId } from '../../ids';
import { parseInput } from '../../validation';
import { requireKb } from '../kbs/require-kb';
import { withOrgRead } from '../org-share';
import type { UploadReport } from '../../../db/json-columns';
import { stagedCount } from './admit-staged-uploads';
import { toDocumentDto, ZDocument, type DocumentDto } from './document-dto';
import { authorize } from '../access/roles';

export const ZUploadReport = z.object({
  filename: z.string(),
  status: z.enum(['accepted', 'queued', 'duplicate', 'replaced', 'refused', 'skipped']).describe(
    'accepted: a new document; queued: stored with the request, its document is created in the background (read the batch); duplicate: the KB already had this file (document_id is that document, nothing stored); replaced: that document is ingested again (replace=true)',
  ),
  document_id: z.string().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
}) satisfies z.ZodType<UploadReport>;
export type { UploadReport };

export const ZUploadBatch = z.object({
  id: z.string(),
  kb_id: z.string(),
  /** done once no document of the batch is processing. */
  status: z.enum(['processing', 'done']),
  percent: z.number().int().min(0).max(100),
  counts: z.object({ processing: z.number().int(), ready: z.number().int(), failed: z.number().int() }),
  documents: z.array(ZDocument),
  files: z.array(ZUploadReport),
  created_at: z.string(),
});
export type UploadBatchDto = z.infer<typeof ZUploadBatch>;

export const ZUploadBatchRef = z.object({ kb_id: z.string().min(1), id: z.string().min(1) }).strict();

/** The batch row, written before the first document so each document can point at it. */
export async function openBatch(ctx: ServiceContext, kb: KnowledgeBase): Promise<BatchId> {
  const id = newId('batch');
  await ctx.db.insertInto('upload_batches').values({ id, org_id: ctx.org.id, kb_id: kb.id }).execute();
  return id;
}

/** Keeps the report the upload answers; a batch that neither created nor found (duplicate) a document is not kept. */
export async function closeBatch(ctx: ServiceContext, id: BatchId, files: UploadReport[], kept: number): Promise<void> {
  if (kept === 0) await ctx.db.deleteFrom('upload_batches').where('id', '=', id).execute();
  else await ctx.db.updateTable('upload_batches').set({ files: JSON.stringify(files) }).where('id', '=', id).execute();
}

/** `queued`: files stored with the batch whose documents are not created yet; they count as processing. */
export function batchProgress(documents: DocumentDto[], queued = 0): Pick<UploadBatchDto, 'status' | 'percent' | 'counts'> {
  const counts = { processing: queued, ready: 0, failed: 0 };
  let done = 0;
  for (const d of documents) {
    counts[d.status]++;
    if (d.status !== 'processing') done += 1;
    else if (d.progress && d.progress.total > 0) done += Math.min(d.progress.done / d.progress.total, 1) * 0.99;
  }
  // Floored, so 100 means settled: a batch reads 100 only once no document is processing.
  const total = documents.length + queued;
  const percent = total === 0 ? 100 : Math.floor((100 * done) / total);
  return { status: counts.processing > 0 ? 'processing' : 'done', percent: counts.processing > 0 ? Math.min(percent, 99) : 100, counts };
}

async function getUploadBatchNow(ctx: ServiceContext, ref: z.input<typeof ZUploadBatchRef>): Promise<{ batch: UploadBatchDto }> {
  const { kb_id, id } = parseInput(ZUploadBatchRef, ref);
  const kb = await requireKb(ctx, kb_id);
  if (!isIdOf('batch', id)) throw notFound('Upload batch');
  const batch = await ctx.db
    .selectFrom('upload_batches')
    .selectAll()
    .where('id', '=', id as BatchId)
    .where('kb_id', '=', kb.id)
    .where('org_id', '=', ctx.org.id)
    .executeTakeFirst();
  if (!batch) throw notFound('Upload batch');
  const rows = await ctx.db.selectFrom('documents').selectAll().where('batch_id', '=', batch.id).orderBy('created_at').orderBy('id').execute();
  const documents = rows.map(toDocumentDto);
  const files = typeof batch.files === 'string' ? (JSON.parse(batch.files) as UploadReport[]) : batch.files;
  return {
    batch: { id: batch.id, kb_id: batch.kb_id, ...batchProgress(documents, await stagedCount(ctx, batch.id)), documents, files, created_at: batch.created_at.toISOString() },
  };
}

/** In the organisation's read line (src/services/org-share.ts), like the other lists. */
export function getUploadBatch(ctx: ServiceContext, ref: z.input<typeof ZUploadBatchRef>) {
  authorize(ctx, 'content.read');
  return withOrgRead(ctx, () => getUploadBatchNow(ctx, ref));
}
