import type { Kysely } from 'kysely';

/**
 * The title a document's chunks are indexed under (PDF/DOCX metadata, the first heading, or a
 * file name that reads like one): kept on the document so re-embedding rebuilds the same vector
 * text. Null for documents ingested before it existed; they get one when re-ingested.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('documents').addColumn('title', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('documents').dropColumn('title').execute();
}
