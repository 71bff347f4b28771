/**
 * Lists a KB's documents, newest first, with their ingestion status. With `limit` it returns one
 * page and a `next_cursor`: keyset pagination on (created_at, id) over an index, so page 1,000 of a
 * 100,000-document KB costs what page 1 does. Without `limit` it returns every document (the
 * original contract) and `next_cursor` is null.
 */
import { sql } from 'kysely';
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { AppError } from '../../errors';
import { isIdOf, type DocumentId } from '../../ids';
import { parseInput } from '../../validation';
import { requireKb } from '../kbs/require-kb';
import { toDocumentDto, type DocumentDto } from './document-dto';
import { withOrgRead } from '../org-share';
import { authorize } from '../access/roles';

export const MAX_DOCUMENT_PAGE = 200;

export const ZListDocumentsInput = z
  .object({
    kb_id: z.string().min(1),
    limit: z.coerce.number().int().min(1).max(MAX_DOCUMENT_PAGE).optional(),
    /** The `next_cursor` of the previous page (opaque). */
    cursor: z.string().min(1).max(100).optional(),
    status: z.enum(['processing', 'ready', 'failed']).optional(),
  })
  .strict();

async function listDocumentsNow(
  ctx: ServiceContext,
  rawInput: z.input<typeof ZListDocumentsInput>,
): Promise<{ documents: DocumentDto[]; next_cursor: string | null }> {
  const input = parseInput(ZListDocumentsInput, rawInput);
  const kb = await requireKb(ctx, input.kb_id);
  let query = ctx.db.selectFrom('documents').selectAll().where('kb_id', '=', kb.id);
  if (input.status) query = query.where('status', '=', input.status);
  if (input.cursor) {
    const cursor = input.cursor as DocumentId;
    const known = isIdOf('doc', cursor) && (await ctx.db.selectFrom('documents').select('id').where('id', '=', cursor).where('kb_id', '=', kb.id).executeTakeFirst());
    if (!known) throw new AppError('invalid_input', 'Unknown cursor: start again from the first page', { field: 'cursor' });
    // The cursor row is read inside the statement, so created_at keeps its microseconds exactly.
    query = query.where(sql<boolean>`(created_at, id) < (select d.created_at, d.id from documents d where d.id = ${cursor})`);
  }
  query = query.orderBy('created_at', 'desc').orderBy('id', 'desc');
  const rows = await (input.limit ? query.limit(input.limit + 1) : query).execute();
  const more = input.limit !== undefined && rows.length > input.limit;
  const page = more ? rows.slice(0, input.limit) : rows;
  return { documents: page.map(toDocumentDto), next_cursor: more ? page[page.length - 1]!.id : null };
}

/** In the organisation's read line (src/services/org-share.ts): a fanned-out read holds two connections at most. */
export function listDocuments(ctx: ServiceContext, rawInput: z.input<typeof ZListDocumentsInput>) {
  authorize(ctx, 'content.read');
  return withOrgRead(ctx, () => listDocumentsNow(ctx, rawInput));
}
