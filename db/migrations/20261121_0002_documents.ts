import { sql, type Kysely } from 'kysely';

/**
 * Documents, their original bytes, and chunks. The embedding column is an untyped `vector` so a KB
 * can use any model; per-dimension partial HNSW indexes keep nearest-neighbour search indexed
 * (queries cast to vector(N) and filter on embedding_dimensions = N).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create extension if not exists vector`.execute(db);

  await db.schema
    .createTable('documents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('kb_id', 'text', (c) => c.notNull().references('knowledge_bases.id').onDelete('cascade'))
    .addColumn('source', 'text', (c) => c.notNull().check(sql`source in ('upload', 'url')`))
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text')
    .addColumn('size_bytes', 'bigint')
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('processing', 'ready', 'failed')`))
    .addColumn('error', 'text')
    .addColumn('chunk_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('pages', 'integer')
    .addColumn('crawl_options', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('documents_kb_idx').on('documents').columns(['kb_id', 'created_at']).execute();
  await db.schema.createIndex('documents_org_idx').on('documents').column('org_id').execute();

  await db.schema
    .createTable('document_files')
    .addColumn('document_id', 'text', (c) => c.primaryKey().references('documents.id').onDelete('cascade'))
    .addColumn('bytes', 'bytea', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('chunks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id').onDelete('cascade'))
    .addColumn('kb_id', 'text', (c) => c.notNull().references('knowledge_bases.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('heading_path', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('page', 'integer')
    .addColumn('url', 'text')
    .addColumn('token_count', 'integer', (c) => c.notNull())
    .addColumn('lexeme_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('tsv', sql`tsvector`, (c) => c.notNull())
    .addColumn('embedding', sql`vector`)
    .addColumn('embedding_dimensions', 'integer')
    .addColumn('embedding_model', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('chunks_document_position_key', ['document_id', 'position'])
    .execute();
  await db.schema.createIndex('chunks_kb_idx').on('chunks').column('kb_id').execute();
  await sql`create index chunks_tsv_idx on chunks using gin (tsv)`.execute(db);
  for (const dims of [512, 1536]) {
    await sql`create index ${sql.raw(`chunks_embedding_${dims}_idx`)} on chunks
      using hnsw ((embedding::vector(${sql.raw(String(dims))})) vector_cosine_ops)
      where embedding_dimensions = ${sql.raw(String(dims))}`.execute(db);
  }

  await db.schema
    .createTable('chat_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('kb_id', 'text', (c) => c.notNull().references('knowledge_bases.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('chat_sessions_kb_idx').on('chat_sessions').columns(['kb_id', 'updated_at']).execute();

  await db.schema
    .createTable('chat_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('session_id', 'text', (c) => c.notNull().references('chat_sessions.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('user', 'assistant')`))
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('citations', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .execute();
  await db.schema.createIndex('chat_messages_session_idx').on('chat_messages').columns(['session_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['chat_messages', 'chat_sessions', 'chunks', 'document_files', 'documents']) {
    await db.schema.dropTable(t).execute();
  }
}
