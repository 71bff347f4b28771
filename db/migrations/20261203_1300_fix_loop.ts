import { sql, type Kysely } from 'kysely';

/**
 * The fix loop: curated answers (`annotations`) that answer matching questions before retrieval,
 * and a switch that takes a whole document out of retrieval (`documents.enabled`).
 *
 * Retrieval filters chunks, never documents (one index probe per side), so a document's switch is
 * copied onto its chunks (`chunks.document_enabled`): the service flips both in one transaction,
 * and a trigger gives every chunk inserted later (a re-ingest, a recrawl) its document's value.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('annotations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('kb_id', 'text', (c) => c.notNull().references('knowledge_bases.id').onDelete('cascade'))
    .addColumn('question', 'text', (c) => c.notNull())
    .addColumn('answer', 'text', (c) => c.notNull())
    .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('embedding', 'bytea')
    .addColumn('embedding_model', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('annotations_kb_idx').on('annotations').columns(['kb_id', 'created_at']).execute();

  await db.schema.alterTable('documents').addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(true)).execute();
  await db.schema.alterTable('chunks').addColumn('document_enabled', 'boolean', (c) => c.notNull().defaultTo(true)).execute();
  await sql`
    create function chunks_document_enabled() returns trigger language plpgsql as $$
    begin
      select d.enabled into new.document_enabled from documents d where d.id = new.document_id;
      new.document_enabled := coalesce(new.document_enabled, true);
      return new;
    end $$`.execute(db);
  await sql`create trigger chunks_document_enabled before insert on chunks for each row execute function chunks_document_enabled()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger if exists chunks_document_enabled on chunks`.execute(db);
  await sql`drop function if exists chunks_document_enabled()`.execute(db);
  await db.schema.alterTable('chunks').dropColumn('document_enabled').execute();
  await db.schema.alterTable('documents').dropColumn('enabled').execute();
  await db.schema.dropTable('annotations').execute();
}
