import { sql, type Kysely } from 'kysely';

/**
 * Curated chunks and crawled pages an administrator can read one by one.
 *
 * chunks: `disabled_at` keeps a chunk but takes it out of retrieval (both sides); `edited_at` marks
 * text an administrator rewrote; `source_hash` is md5 of the text ingestion produced, so a re-ingest
 * that produces the same chunk again carries the edit (or the switch) over, and one that changed it
 * drops them. The (kb_id, md5(text)) index finds duplicates within a KB.
 *
 * crawl_pages: the title, when each page was last fetched, when its content last changed and how the
 * last crawl found it. documents.crawl_failures: the pages the last crawl could not read and why.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('chunks')
    .addColumn('disabled_at', 'timestamptz')
    .addColumn('edited_at', 'timestamptz')
    .addColumn('source_hash', 'text')
    .execute();
  await sql`create index chunks_kb_text_md5_idx on chunks (kb_id, md5(text))`.execute(db);
  await db.schema
    .alterTable('crawl_pages')
    .addColumn('title', 'text')
    .addColumn('fetched_at', 'timestamptz')
    .addColumn('changed_at', 'timestamptz')
    .addColumn('last_change', 'text', (c) => c.check(sql`last_change in ('added', 'changed', 'unchanged')`))
    .execute();
  await db.schema.alterTable('documents').addColumn('crawl_failures', 'jsonb').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('documents').dropColumn('crawl_failures').execute();
  await db.schema.alterTable('crawl_pages').dropColumn('title').dropColumn('fetched_at').dropColumn('changed_at').dropColumn('last_change').execute();
  await sql`drop index if exists chunks_kb_text_md5_idx`.execute(db);
  await db.schema.alterTable('chunks').dropColumn('disabled_at').dropColumn('edited_at').dropColumn('source_hash').execute();
}
