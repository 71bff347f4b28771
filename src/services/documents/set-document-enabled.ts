/**
 * Switches a whole document off (kept, listed, never retrieved) or on again. Retrieval filters
 * chunks (vector-search.ts enabledChunkSql), so the switch is written on the document and copied
 * onto its chunks in one transaction; chunks a later re-ingest or recrawl inserts take the
 * document's value from a trigger (migration 1300). A chunk's own switch (curate-chunk.ts) is
 * kept apart: switching the document on again leaves a chunk switched off by hand off.
 */
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { parseInput } from '../../validation';
import { authorize } from '../access/roles';
import { recordAudit } from '../audit/record-audit';
import { toDocumentDto, type DocumentDto } from './document-dto';
import { requireDocument, ZDocumentRef } from './get-document';

export const ZSetDocumentEnabledInput = ZDocumentRef.extend({ enabled: z.boolean() }).strict();

export async function setDocumentEnabled(ctx: ServiceContext, raw: z.input<typeof ZSetDocumentEnabledInput>): Promise<{ document: DocumentDto }> {
  authorize(ctx, 'document.write');
  const { enabled, ...ref } = parseInput(ZSetDocumentEnabledInput, raw);
  const doc = await requireDocument(ctx, ref);
  if (doc.enabled === enabled) return { document: toDocumentDto(doc) };
  return ctx.db.transaction().execute(async (trx) => {
    const updated = await trx.updateTable('documents').set({ enabled, updated_at: new Date() }).where('id', '=', doc.id).returningAll().executeTakeFirstOrThrow();
    await trx.updateTable('chunks').set({ document_enabled: enabled }).where('document_id', '=', doc.id).execute();
    await recordAudit({ ...ctx, db: trx }, {
      action: enabled ? 'document.enable' : 'document.disable',
      targetType: 'document',
      targetId: doc.id,
      changes: { kb_id: doc.kb_id, filename: doc.filename, before: { enabled: doc.enabled }, after: { enabled } },
    });
    return { document: toDocumentDto(updated) };
  });
}
