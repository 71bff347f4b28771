import { sql, type Kysely } from 'kysely';

/**
 * The sha256 of an uploaded document's file (src/services/documents/ingest-upload.ts): an upload
 * whose bytes match a document of the same KB is answered `duplicate` with that document instead
 * of becoming a second one. Uploads stored before are hashed here from their stored parts, so a
 * re-upload of an older document is recognised too; URL documents have none.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('documents').addColumn('content_hash', 'text').execute();
  await sql`
    update documents d set content_hash = f.hash
    from (
      select document_id, encode(sha256(string_agg(bytes, ''::bytea order by part)), 'hex') as hash
      from document_files group by document_id
    ) f
    where f.document_id = d.id and d.source = 'upload'`.execute(db);
  await sql`create index documents_kb_content_hash on documents (kb_id, content_hash) where content_hash is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists documents_kb_content_hash`.execute(db);
  await db.schema.alterTable('documents').dropColumn('content_hash').execute();
}
