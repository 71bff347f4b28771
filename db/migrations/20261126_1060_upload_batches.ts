import { sql, type Kysely } from 'kysely';

/**
 * A bulk upload (several files or a ZIP) is a batch (issue #26): its id is returned with the
 * documents it created, and its progress is read back by id on every transport. The batch keeps the
 * per-file report the upload answered, so a client that lost the answer can read it again; its
 * documents point at it (set null when the batch goes, which only happens with its KB).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('upload_batches')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('kb_id', 'text', (c) => c.notNull().references('knowledge_bases.id').onDelete('cascade'))
    .addColumn('files', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.alterTable('documents').addColumn('batch_id', 'text', (c) => c.references('upload_batches.id').onDelete('set null')).execute();
  await db.schema.createIndex('documents_batch_idx').on('documents').column('batch_id').where(sql.ref('batch_id'), 'is not', null).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('documents_batch_idx').execute();
  await db.schema.alterTable('documents').dropColumn('batch_id').execute();
  await db.schema.dropTable('upload_batches').execute();
}
