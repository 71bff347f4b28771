/** Lists a KB's documents, newest first, with their ingestion status. */
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { parseInput } from '../../validation';
import { requireKb } from '../kbs/require-kb';
import { toDocumentDto, type DocumentDto } from './document-dto';

export const ZListDocumentsInput = z.object({ kb_id: z.string().min(1) }).strict();

export async function listDocuments(ctx: ServiceContext, rawInput: z.input<typeof ZListDocumentsInput>): Promise<{ documents: DocumentDto[] }> {
  const { kb_id } = parseInput(ZListDocumentsInput, rawInput);
  const kb = await requireKb(ctx, kb_id);
  const rows = await ctx.db
    .selectFrom('documents')
    .selectAll()
    .where('kb_id', '=', kb.id)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
  return { documents: rows.map(toDocumentDto) };
}
