import type { Kysely } from 'kysely';

/**
 * The language a document's text is in (src/text/language.ts), detected at ingestion: its chunks
 * are indexed with that language's stemmer and stop words, and questions to the KB are analysed
 * among its documents' languages. Null for documents ingested before it, which keep their English
 * index until re-ingested (the language comes from the text, which a migration does not re-read).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('documents').addColumn('language', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('documents').dropColumn('language').execute();
}
