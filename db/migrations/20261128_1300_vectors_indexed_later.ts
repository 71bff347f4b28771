import { sql, type Kysely } from 'kysely';

/**
 * A chunk's vector can be stored before it joins the HNSW index (`vector_pending`). On the embedded
 * database inserting a row into the HNSW index costs ~3.4 ms (PGlite's WebAssembly), two thirds of
 * storing a big document: the 619-page PDF's 2,461 chunks spent ~8 s there before the document could
 * be ready (`npm run bench -- ingest-stages`). Its chunks are now stored pending, the document is ready
 * once they are, and retrieval reads pending vectors by an exact scan of the KB's pending rows
 * (src/answering/retrieval/vector-search.ts); a `kbs__index_vectors` job moves them into the index in short
 * statements afterwards.
 *
 * The HNSW indexes leave pending rows out (their predicate), and a partial index finds a KB's
 * pending rows. The HNSW rebuild runs once, at the release that applies this migration, and holds
 * the chunks table's write lock meanwhile (as 0702's did).
 */
async function rebuildVectorIndexes(db: Kysely<any>, predicate: string) {
  for (const dims of [512, 1536]) {
    const name = sql.raw(`chunks_embedding_${dims}_idx`);
    await sql`drop index if exists ${name}`.execute(db);
    await sql`create index ${name} on chunks
      using hnsw ((embedding::vector(${sql.raw(String(dims))})) vector_cosine_ops) with (m = 12, ef_construction = 64)
      where embedding_dimensions = ${sql.raw(String(dims))}${sql.raw(predicate)}`.execute(db);
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table chunks add column vector_pending boolean not null default false`.execute(db);
  await sql`create index chunks_vector_pending_idx on chunks (kb_id) where vector_pending`.execute(db);
  await rebuildVectorIndexes(db, ' and not vector_pending');
}

export async function down(db: Kysely<any>): Promise<void> {
  await rebuildVectorIndexes(db, '');
  await sql`drop index chunks_vector_pending_idx`.execute(db);
  await sql`alter table chunks drop column vector_pending`.execute(db);
}
