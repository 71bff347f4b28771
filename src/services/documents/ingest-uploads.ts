/**
 * Bulk upload: several files, or ZIP archives of files, in one request. Each file is judged on its
 * own (type, size, the plan's document limit) and becomes its own document in its own transaction,
 * so one bad file never sinks the others; the report says, per file, what was accepted and why
 * anything was refused or skipped.
 *
 * The request answers within a time budget (BULK_UPLOAD_BUDGET_MS, 3 s from the request's arrival,
 * so authenticating and reading the body count): a ZIP of 5,000 tiny files took 276 s to create
 * 1,000 documents and the client, timing out, never learnt their ids (issue 26). Files it has no
 * time to make into documents are still judged here (type, size, the plan's room) and stored whole
 * with the batch, reported `queued`; the `uploads__admit` job makes them into documents in the
 * organisation's job lanes (src/services/documents/admit-staged-uploads.ts), and the batch's report
 * then says `accepted` with the document id, or `refused` with the reason. So everything that fits
 * is acknowledged in one answer (20 PDFs used to answer 11 accepted and 9 `not_processed`).
 *
 * The answer carries a `batch_id`: the batch's progress (counts per status, documents, percent) is
 * read back by id on every transport (src/services/documents/upload-batch.ts).
 */
import { setImmediate as nextEventLoopTurn } from 'node:timers/promises';
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { AppError, type ErrorCode } from '../../errors';
import { isDocumentArchive, unpackZipEntries } from '../../ingest/unpack-zip';
import { parseInput } from '../../validation';
import { requireKb } from '../kbs/require-kb';
import { planLimits } from '../plans';
import type { DocumentDto } from './document-dto';
import { stageFiles, type StagedFile } from './admit-staged-uploads';
import { planLimitExceeded } from './create-document';
import { acceptFile, judgeFile } from './ingest-upload';
import { closeBatch, openBatch, type UploadReport } from './upload-batch';
import { authorize } from '../access/roles';

export { ZUploadReport, type UploadReport } from './upload-batch';

export type UploadedFile = { filename: string; bytes: Buffer; tooLarge?: boolean };

const ZIngestUploadsInput = z.object({
  kb_id: z.string({ error: 'is required' }).min(1),
  replace: z.boolean().optional(),
  files: z.array(z.object({ filename: z.string().max(500), bytes: z.instanceof(Buffer), tooLarge: z.boolean().optional() })).min(1, 'at least one file is required'),
});

const MB = 1024 * 1024;

/** True when an upload of exactly these files keeps the single-document answer ({document}). */
export function isSingleDocumentUpload(files: UploadedFile[]): boolean {
  return files.length === 1 && !files[0]!.tooLarge && !isDocumentArchive(files[0]!.bytes, files[0]!.filename);
}

export async function ingestUploads(
  ctx: ServiceContext,
  rawInput: { kb_id: string; files: UploadedFile[]; replace?: boolean },
): Promise<{ documents: DocumentDto[]; files: UploadReport[]; batch_id: string }> {
  authorize(ctx, 'document.write');
  const input = parseInput(ZIngestUploadsInput, rawInput);
  const kb = await requireKb(ctx, input.kb_id);
  const batchId = await openBatch(ctx, kb);
  const documents: DocumentDto[] = [];
  const report: UploadReport[] = [];
  let duplicates = 0;
  const refused = (filename: string, code: ErrorCode | string, message: string) =>
    report.push({ filename, status: 'refused', document_id: null, error: { code, message } });

  // From the request's arrival, not from here: authenticating, reading the body and waiting for the
  // database under load took seconds before this point, and the answer is what the budget bounds.
  const deadline = ctx.receivedAt + ctx.config.bulkUpload.budgetMs;
  // At least one file is always created, so a slow unpack never turns the request into "nothing accepted".
  const pastDeadline = () => documents.length + duplicates > 0 && Date.now() > deadline;
  const staged: StagedFile[] = [];
  // The plan's room for staged files, counted once when the first is staged; their documents are
  // counted again, exactly, when they are created.
  let room: number | null = null;
  const stage = async (filename: string, bytes: Buffer) => {
    try {
      await judgeFile(bytes, filename);
    } catch (err) {
      if (!(err instanceof AppError) || err.code === 'internal_error') throw err;
      return refused(filename, err.code, err.message);
    }
    room ??= await planRoom(ctx);
    if (staged.length >= room) {
      const err = planLimitExceeded(ctx.org.plan);
      return refused(filename, err.code, err.message);
    }
    staged.push({ reportIndex: report.length, filename, bytes });
    report.push({ filename, status: 'queued', document_id: null, error: null });
  };
  const accept = async (filename: string, bytes: Buffer) => {
    if (pastDeadline()) return stage(filename, bytes);
    try {
      const { document, duplicate, replaced } = await acceptFile(ctx, kb, filename, bytes, { batchId, replace: input.replace ?? false });
      // `documents` are the ones this request sends to ingestion; a plain duplicate is only reported.
      if (!duplicate || replaced) documents.push(document);
      else duplicates++;
      report.push({ filename: duplicate ? filename : document.filename, status: replaced ? 'replaced' : duplicate ? 'duplicate' : 'accepted', document_id: document.id, error: null });
    } catch (err) {
      if (!(err instanceof AppError) || err.code === 'internal_error') throw err;
      refused(filename, err.code, err.message);
    }
  };

  try {
    for (const file of input.files) {
      const filename = file.filename.trim() || 'upload';
      if (file.tooLarge) {
        refused(filename, 'payload_too_large', `The file exceeds the upload limit of ${Math.round(ctx.config.maxUploadBytes / MB)} MB`);
        continue;
      }
      if (!isDocumentArchive(file.bytes, filename)) {
        await accept(filename, file.bytes);
        continue;
      }
      const limits = ctx.config.bulkUpload;
      // One entry inflated at a time (src/ingest/unpack-zip.ts); all of them, within the archive's
      // limits, since those past the budget are stored to be made into documents in the background.
      const unpacking = unpackZipEntries(file.bytes, {
        maxEntryBytes: ctx.config.maxUploadBytes,
        maxEntries: limits.zipMaxEntries,
        maxInflatedBytes: limits.zipMaxInflatedBytes,
      });
      let listed = 0;
      let next = unpacking.next();
      for (; !next.done; next = unpacking.next()) {
        const entry = next.value;
        if (entry === null) {
          await nextEventLoopTurn(); // other requests run between slices of a big entry's inflation
          continue;
        }
        listed++;
        const name = entry.name;
        if (entry.status === 'file') await accept(name, entry.bytes);
        else if (entry.status === 'unread') refused(name, 'invalid_input', 'The entry could not be read');
        else if (entry.status === 'skipped') report.push({ filename: name, status: 'skipped', document_id: null, error: { code: 'skipped', message: entry.reason } });
        else refused(name, entry.code, entry.reason);
      }
      const { damaged } = next.value;
      if (damaged && listed === 0) {
        refused(filename, 'invalid_input', 'The ZIP archive is damaged and cannot be read');
        continue;
      }
      if (damaged) refused(filename, 'invalid_input', 'The ZIP archive is damaged after the entries listed');
    }
  } catch (err) {
    // What was created stays in the batch, readable by its id; the error answers the request.
    await closeBatch(ctx, batchId, report, documents.length + duplicates).catch(() => {});
    throw err;
  }
  await closeBatch(ctx, batchId, report, documents.length + duplicates + staged.length);
  await stageFiles(ctx, batchId, staged);
  if (documents.length === 0 && duplicates === 0 && staged.length === 0) {
    throw new AppError('invalid_input', `None of the ${report.length} files was accepted; see details.files for each reason`, { field: 'file', files: report });
  }
  ctx.logger.info({ kbId: kb.id, accepted: documents.length, refused: report.filter((r) => r.status === 'refused').length, queued: staged.length }, 'bulk upload');
  return { documents, files: report, batch_id: batchId };
}

/** Documents the organisation's plan still allows. */
async function planRoom(ctx: ServiceContext): Promise<number> {
  const { n } = await ctx.db
    .selectFrom('documents')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('org_id', '=', ctx.org.id)
    .executeTakeFirstOrThrow();
  return Math.max(0, planLimits(ctx.org.plan).maxDocuments - Number(n));
}
