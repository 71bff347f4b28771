/** Deletes a document with its file and chunks. A job still ingesting it notices and does nothing. */
import type { ServiceContext } from '../../context';
import { requireDocument, type DocumentRef } from './get-document';
import { authorize } from '../access/roles';
import { recordAudit } from '../audit/record-audit';

export async function deleteDocument(ctx: ServiceContext, ref: DocumentRef): Promise<{ success: boolean }> {
  authorize(ctx, 'document.write');
  const doc = await requireDocument(ctx, ref);
  await ctx.db.deleteFrom('documents').where('id', '=', doc.id).execute();
  await recordAudit(ctx, { action: 'document.delete', targetType: 'document', targetId: doc.id, changes: { kb_id: doc.kb_id, title: doc.title } });
  ctx.logger.info({ documentId: doc.id }, 'document deleted');
  return { success: true };
}
