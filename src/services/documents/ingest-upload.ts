/**
 * Accepts an uploaded file: its type is decided by its content (magic bytes and structure), not by
 * its name, and anything that is not PDF, DOCX, Markdown or text is refused before it is stored.
 */
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

export const ZIngestUploadInput = z.object({
  kb_id: z.string({ error: 'is required' }).min(1),
  filename: z.string().max(500),
  bytes: z.instanceof(Buffer),
});
export type IngestUploadInput = z.input<typeof ZIngestUploadInput>;

export async function ingestUpload(ctx: ServiceContext, rawInput: IngestUploadInput): Promise<{ document: DocumentDto }> {
  const input = parseInput(ZIngestUploadInput, rawInput);
  const kb = await requireKb(ctx, input.kb_id);
  return { document: await acceptFile(ctx, kb, input.filename, input.bytes) };
}

/** One file into one document of a KB already checked to be the caller's; refusals are AppErrors. */
export async function acceptFile(ctx: ServiceContext, kb: KnowledgeBase, rawFilename: string, bytes: Buffer, batchId?: BatchId): Promise<DocumentDto> {
  const filename = rawFilename.trim().slice(0, 500) || 'upload';
  const type = await judgeFile(bytes, filename);
  return createDocument(ctx, { kb, source: 'upload', filename, contentType: type, bytes, ...(batchId ? { batchId } : {}) });
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
