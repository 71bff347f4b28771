import type { Kysely } from 'kysely';

/**
 * A big document's chunks between its ingestion steps (src/services/documents/ingest-steps.ts):
 * parsed and chunked once, then embedded and moved into `chunks` a bounded step per job, so one
 * organisation's big document never holds a worker slot for minutes (issue #26). Plain rows, no
 * index but the key and no trigger: writing them costs little next to embedding and storing.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('ingest_pending_chunks')
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('chunk', 'jsonb', (c) => c.notNull())
    .addPrimaryKeyConstraint('ingest_pending_chunks_pkey', ['document_id', 'position'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('ingest_pending_chunks').execute();
}
