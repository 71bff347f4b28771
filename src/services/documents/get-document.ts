import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { notFound } from '../../errors';
import { isIdOf, type DocumentId } from '../../ids';
import { parseInput } from '../../validation';
import { requireKb } from '../kbs/require-kb';
import { toDocumentDto, type DocumentDto } from './document-dto';
import { authorize } from '../access/roles';

export const ZDocumentRef = z.object({ kb_id: z.string().min(1), id: z.string().min(1) }).strict();
export type DocumentRef = z.input<typeof ZDocumentRef>;

/** A document of one of the caller's KBs; anything else is "not found". */
export async function requireDocument(ctx: ServiceContext, ref: DocumentRef) {
  const { kb_id, id } = parseInput(ZDocumentRef, ref);
  const kb = await requireKb(ctx, kb_id);
  if (!isIdOf('doc', id)) throw notFound('Document');
  const doc = await ctx.db
    .selectFrom('documents')
    .selectAll()
    .where('id', '=', id as DocumentId)
    .where('kb_id', '=', kb.id)
    .executeTakeFirst();
  if (!doc) throw notFound('Document');
  return doc;
}

export async function getDocument(ctx: ServiceContext, ref: DocumentRef): Promise<{ document: DocumentDto }> {
  authorize(ctx, 'content.read');
  return { document: toDocumentDto(await requireDocument(ctx, ref)) };
}
