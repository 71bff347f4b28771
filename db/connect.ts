/**
 * Kysely over a `pg` Pool. The same Pool shape serves real PostgreSQL and the embedded PGlite
 * (reached over its in-process wire server), so every query path is identical in both modes.
 */
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './types';

export type Db = Kysely<Database>;

// COUNT(*) and bigint columns arrive as strings by default; our counts fit comfortably in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));

/**
 * Every connection's pgvector settings. Iterative index scans keep an HNSW search going until it has
 * `limit` rows of the queried KB, however small that KB is within the shared index
 * (src/services/rag/vector-search.ts). Unknown to Postgres before pgvector loads, they wait as
 * placeholders.
 */
const SESSION_SETTINGS = 'set hnsw.iterative_scan = relaxed_order; set hnsw.ef_search = 40';

/**
 * On the embedded database every statement runs one after another, so under load a connection can
 * legitimately wait longer for its turn than a PostgreSQL client should ever wait for a connection.
 */
export function createPool(connectionString: string, max: number, opts: { embedded?: boolean } = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: opts.embedded ? 120_000 : 10_000,
    // Awaited before the pool hands the new client out. Best effort: without the settings a search
    // still works but can find fewer neighbours than asked for in a small KB.
    onConnect: (client: pg.ClientBase) => client.query(SESSION_SETTINGS).then(() => {}, () => {}),
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  return pool;
}

export function createDb(pool: pg.Pool): Db {
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
