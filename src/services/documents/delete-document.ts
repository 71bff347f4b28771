/** Deletes a document with its file and chunks. A job still ingesting it notices and does nothing. */
import type { ServiceContext } from '../../context';
import { requireDocument, type DocumentRef } from './get-document';

export async function deleteDocument(ctx: ServiceContext, ref: DocumentRef): Promise<{ success: boolean }> {
  const doc = await requireDocument(ctx, ref);
  await ctx.db.deleteFrom('documents').where('id', '=', doc.id).execute();
  ctx.logger.info({ documentId: doc.id }, 'document deleted');
  return { success: true };
}
