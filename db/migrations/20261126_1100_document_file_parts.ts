import { sql, type Kysely } from 'kysely';

/**
 * An uploaded file is stored in parts of at most 4 MB (src/services/documents/document-file.ts)
 * instead of one bytea value. On the embedded database one 20 MB value grew PGlite's WebAssembly
 * memory by 137 MB (the message, the value and its compression, all whole), and that memory never
 * shrinks; 4 MB parts grow it by nothing measurable (issue 26). Rows stored before are part 0.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('document_files').addColumn('part', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('document_files').dropConstraint('document_files_pkey').execute();
  await db.schema.alterTable('document_files').addPrimaryKeyConstraint('document_files_pkey', ['document_id', 'part']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  // Parts joined back into one value, in order, before the key allows one row per document again.
  await sql`
    with joined as (
      select document_id, string_agg(bytes, ''::bytea order by part) as bytes
      from document_files group by document_id having count(*) > 1
    ),
    gone as (delete from document_files f using joined j where f.document_id = j.document_id and f.part > 0)
    update document_files f set bytes = j.bytes from joined j where f.document_id = j.document_id and f.part = 0`.execute(db);
  await db.schema.alterTable('document_files').dropConstraint('document_files_pkey').execute();
  await db.schema.alterTable('document_files').dropColumn('part').execute();
  await db.schema.alterTable('document_files').addPrimaryKeyConstraint('document_files_pkey', ['document_id']).execute();
}
