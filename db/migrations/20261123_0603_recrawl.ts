import { sql, type Kysely } from 'kysely';

/**
 * Websites kept fresh: a URL document's re-crawl schedule and what its last crawl changed, and per
 * crawled page the validators (ETag, Last-Modified) and content hash a re-crawl compares against,
 * plus its links (a 304 has no body to find them in).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('documents')
    .addColumn('recrawl', 'text', (c) => c.check(sql`recrawl in ('daily', 'weekly')`))
    .addColumn('last_crawled_at', 'timestamptz')
    .addColumn('next_crawl_at', 'timestamptz')
    .addColumn('last_crawl_changes', 'jsonb')
    .execute();
  await db.schema.createIndex('documents_next_crawl_idx').on('documents').column('next_crawl_at').where(sql.ref('recrawl'), 'is not', null).execute();
  await db.schema
    .createTable('crawl_pages')
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('etag', 'text')
    .addColumn('last_modified', 'text')
    .addColumn('content_hash', 'text', (c) => c.notNull())
    .addColumn('links', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addPrimaryKeyConstraint('crawl_pages_pkey', ['document_id', 'url'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('crawl_pages').execute();
  await db.schema.alterTable('documents').dropColumn('recrawl').dropColumn('last_crawled_at').dropColumn('next_crawl_at').dropColumn('last_crawl_changes').execute();
}
