import type { Kysely } from 'kysely';

/**
 * What a document is about (src/ingest/document-identity.ts: subject, kind, period, running
 * headers), read at ingestion and indexed with every chunk. Null for documents ingested before it:
 * they keep their chunks and rankings as they were until re-ingested (reupload, or a re-crawl for
 * URLs), because the identity comes from the parse, which a migration cannot redo.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('documents').addColumn('identity', 'jsonb').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('documents').dropColumn('identity').execute();
}
