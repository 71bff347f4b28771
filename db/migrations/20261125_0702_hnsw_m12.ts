import { sql, type Kysely } from 'kysely';

/**
 * The chunk vectors' HNSW indexes rebuilt with m = 12 links per node instead of pgvector's default
 * 16 (ef_construction stays 64): inserting a chunk costs about a quarter less, which is most of the
 * difference in a large PDF's ingestion time, and answers in the top 5 are unchanged at 10,000 to
 * 200,000 chunks (docs/scaling.md). The rebuild runs once, at the release that applies this
 * migration, and holds the chunks table's write lock meanwhile.
 */
async function rebuild(db: Kysely<any>, m: number) {
  for (const dims of [512, 1536]) {
    const name = sql.raw(`chunks_embedding_${dims}_idx`);
    await sql`drop index if exists ${name}`.execute(db);
    await sql`create index ${name} on chunks
      using hnsw ((embedding::vector(${sql.raw(String(dims))})) vector_cosine_ops) with (m = ${sql.raw(String(m))}, ef_construction = 64)
      where embedding_dimensions = ${sql.raw(String(dims))}`.execute(db);
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  await rebuild(db, 12);
}

export async function down(db: Kysely<any>): Promise<void> {
  await rebuild(db, 16);
}
