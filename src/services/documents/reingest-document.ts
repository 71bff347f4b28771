/**
 * Runs ingestion again (e.g. after a parser upgrade, a transient failure, or to refresh a crawled
 * site). The document goes back to processing; its old chunks stay searchable until the new ones
 * replace them in one transaction.
 */
import type { ServiceContext } from '../../context';
import { ingestJobKey } from './create-document';
import { toDocumentDto, type DocumentDto } from './document-dto';
import { requireDocument, type DocumentRef } from './get-document';
import { authorize } from '../access/roles';
import { recordAudit } from '../audit/record-audit';

export async function reingestDocument(ctx: ServiceContext, ref: DocumentRef): Promise<{ document: DocumentDto }> {
  authorize(ctx, 'document.write');
  const doc = await requireDocument(ctx, ref);
  const row = await ctx.db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('documents')
      .set({ status: 'processing', error: null, updated_at: new Date() })
      .where('id', '=', doc.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit({ ...ctx, db: trx }, { action: 'document.reingest', targetType: 'document', targetId: doc.id, changes: { kb_id: doc.kb_id } });
    await ctx.jobs.enqueueOrg(trx, 'documents__ingest', { document_id: doc.id }, { jobKey: ingestJobKey(doc.id), orgId: ctx.org.id, documentId: doc.id });
    return updated;
  });
  return { document: toDocumentDto(row) };
}
