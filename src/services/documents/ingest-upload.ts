/**
 * Accepts an uploaded file: its type is decided by its content (magic bytes and structure), not by
 * its name, and anything that is not PDF, DOCX, Markdown or text is refused before it is stored.
 * A file whose bytes (sha256) match a document of the same KB is not stored again: the answer is
 * that document with `duplicate: true`; with `replace: true` that document is ingested again.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import type { KnowledgeBase } from '../../../db/types';
import { AppError } from '../../errors';
import type { BatchId } from '../../ids';
import { detectType } from '../../ingest/detect-type';
import { isPermanentIngestError } from '../../ingest/errors';
import { parseInput } from '../../validation';
import { requireKb } from '../kbs/require-kb';
import { createDocument } from './create-document';
import type { DocumentDto } from './document-dto';
import { reingestDocument } from './reingest-document';
import { authorize } from '../access/roles';

export const ZIngestUploadInput = z.object({
  kb_id: z.string({ error: 'is required' }).min(1),
  filename: z.string().max(500),
  bytes: z.instanceof(Buffer),
  /** Re-ingest the KB's document that has the same file, instead of answering it as a duplicate. */
  replace: z.boolean().optional(),
});
export type IngestUploadInput = z.input<typeof ZIngestUploadInput>;

/**
 * `duplicate`: the KB already had this file, and `document` is that document (nothing new stored).
 * `replaced`: with `replace`, that document was sent back to ingestion.
 */
export type AcceptedFile = { document: DocumentDto; duplicate: boolean; replaced: boolean };

/** What one upload answers on REST and tRPC: a new document alone, as it always was; a duplicate says so. */
export type UploadAnswer = { document: DocumentDto } | { document: DocumentDto; duplicate: true; replaced: boolean };

export async function ingestUpload(ctx: ServiceContext, rawInput: IngestUploadInput): Promise<UploadAnswer> {
  authorize(ctx, 'document.write');
  const input = parseInput(ZIngestUploadInput, rawInput);
  const kb = await requireKb(ctx, input.kb_id);
  const { document, duplicate, replaced } = await acceptFile(ctx, kb, input.filename, input.bytes, { replace: input.replace ?? false });
  return duplicate ? { document, duplicate: true, replaced } : { document };
}

/** The sha256 an upload's duplicate is recognised by (documents.content_hash). */
export const contentHash = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** One file into one document of a KB already checked to be the caller's; refusals are AppErrors. */
export async function acceptFile(
  ctx: ServiceContext,
  kb: KnowledgeBase,
  rawFilename: string,
  bytes: Buffer,
  opts: { batchId?: BatchId; replace?: boolean } = {},
): Promise<AcceptedFile> {
  const filename = rawFilename.trim().slice(0, 500) || 'upload';
  const type = await judgeFile(bytes, filename);
  const created = await createDocument(ctx, {
    kb,
    source: 'upload',
    filename,
    contentType: type,
    bytes,
    contentHash: contentHash(bytes),
    ...(opts.batchId ? { batchId: opts.batchId } : {}),
  });
  if (!created.duplicate || !opts.replace) return { ...created, replaced: false };
  const { document } = await reingestDocument(ctx, { kb_id: kb.id, id: created.document.id });
  return { document, duplicate: true, replaced: true };
}

/** The file's type, or the refusal (empty, not one of our formats, unreadable) as an AppError. */
export async function judgeFile(bytes: Buffer, filename: string): Promise<string> {
  if (bytes.length === 0) throw new AppError('invalid_input', 'The file is empty', { field: 'file' });
  let type: string;
  try {
    type = await detectType(bytes, filename);
  } catch (err) {
    if (isPermanentIngestError(err)) {
      // Not one of our formats is 415; one of them but unreadable (a truncated DOCX) is bad input.
      const unsupported = err.code === 'unsupported_type' || err.code === 'type_mismatch';
      throw new AppError(unsupported ? 'unsupported_media_type' : 'invalid_input', err.message, { field: 'file' });
    }
    throw err;
  }
  return type;
}
