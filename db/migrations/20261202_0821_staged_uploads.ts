import type { Kysely } from 'kysely';

/**
 * Files of a bulk upload that the request had no time to turn into documents: stored whole with the
 * request and made into documents in the background, in the organisation's job lanes
 * (src/services/documents/admit-staged-uploads.ts). `report_index` is the file's place in the
 * batch's report, which the background work fills in. Gone with the batch (and so with the KB).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('upload_staged_files')
    .addColumn('batch_id', 'text', (c) => c.notNull().references('upload_batches.id').onDelete('cascade'))
    .addColumn('report_index', 'integer', (c) => c.notNull())
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('bytes', 'bytea', (c) => c.notNull())
    .addPrimaryKeyConstraint('upload_staged_files_pk', ['batch_id', 'report_index'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('upload_staged_files').execute();
}
