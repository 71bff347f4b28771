/**
 * Kysely over a `pg` Pool. The same Pool shape serves real PostgreSQL and the embedded PGlite
 * (reached over its in-process wire server), so every query path is identical in both modes.
 */
import { createHash } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './types';

export type Db = Kysely<Database>;

// COUNT(*) and bigint columns arrive as strings by default; our counts fit comfortably in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));

/**
 * HNSW's search breadth: how many nearest vectors the graph walk keeps. With 30, the nearest 30 of a
 * KB of 26,000 passages (FinanceBench's 41 filings) came back with 84% of the exact 30; with 100,
 * 97%, for 0.7 ms more per query (bench/research/vector-recall.ts, docs/architecture.md). Candidates
 * the walk misses are never scored, and which ones it misses changed with the order passages were
 * stored in: the same KB ingested twice ranked differently.
 */
export const HNSW_EF_SEARCH = 100;

/**
 * Every connection's settings (pgvector's; unknown to Postgres before pgvector loads, they wait as
 * placeholders). Iterative index scans keep an HNSW search going until it has `limit` rows of the
 * queried KB, however small that KB is within the shared index (src/services/rag/vector-search.ts).
 */
const SESSION_SETTINGS = `set hnsw.iterative_scan = relaxed_order; set hnsw.ef_search = ${HNSW_EF_SEARCH}`;

/**
 * A statement whose text starts with this comment is prepared once per connection, named after a
 * hash of its text, and executed by name from then on: Postgres parses and analyses it once, and
 * after five executions may reuse one cached plan (plan_cache_mode auto) instead of planning again.
 * Such a statement must have as literals whatever decides its plan (the retrieval statements inline
 * the KB id and their limits, see vector-search.ts): a plan cached without them can be 90 times
 * slower. Each connection keeps its most recently used PREPARED_PER_CONNECTION statements: a
 * retrieval statement with its cached plan holds about 0.5 MB in its backend.
 */
export const PREPARED = '/* prepared */';

export const PREPARED_PER_CONNECTION = 32;

type QueryArgs = [text: unknown, values?: unknown, callback?: unknown];

/** What pg.Client keeps of the statements it prepared on its connection (not in pg's typings). */
type StatementRegistry = { parsedStatements: Record<string, string>; submittedNamedStatements: Record<string, string> };

/** pg.Client whose `query` runs PREPARED statements by name. Typed loosely: pg's overloads cannot be forwarded one by one. */
class PreparingClient extends pg.Client {
  /** Names of this connection's prepared statements, least recently used first. */
  private readonly prepared = new Set<string>();

  override query(...args: QueryArgs): never {
    const [text, values, callback] = args;
    const query = super.query.bind(this) as (...a: unknown[]) => never;
    if (typeof text !== 'string' || !text.startsWith(PREPARED)) return query(...args);
    const name = `gw_${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`;
    this.prepared.delete(name);
    this.prepared.add(name);
    if (this.prepared.size > PREPARED_PER_CONNECTION) this.evict(this.prepared.values().next().value!);
    return query({ name, text, values }, callback);
  }

  /**
   * Forgets a statement here and deallocates it on the server, in that order: a later query of the
   * same text parses it again, after the deallocation (a client runs its queries in order).
   */
  private evict(name: string) {
    this.prepared.delete(name);
    const registry = (this as unknown as { connection: StatementRegistry }).connection;
    delete registry.parsedStatements[name];
    delete registry.submittedNamedStatements[name];
    (super.query.bind(this) as (text: string) => Promise<unknown>)(`deallocate "${name}"`).catch(() => {});
  }
}

/**
 * On the embedded database every statement runs one after another, so under load a connection can
 * legitimately wait longer for its turn than a PostgreSQL client should ever wait for a connection.
 */
export function createPool(connectionString: string, max: number, opts: { embedded?: boolean } = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    // The embedded server runs every connection in one session, where named statements would collide.
    ...(opts.embedded ? {} : { Client: PreparingClient }),
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: opts.embedded ? 120_000 : 10_000,
    // Awaited before the pool hands the new client out. Best effort: without the settings a search
    // still works but can find fewer neighbours than asked for in a small KB.
    onConnect: (client: pg.ClientBase) => client.query(SESSION_SETTINGS).then(() => {}, () => {}),
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  // Nor may a checked-out one between two queries (a transaction waiting on an upload's body, say,
  // when PostgreSQL restarts): pg emits `error` on it, and pg-pool listens only while it is idle.
  // Its next query fails (a 503, src/errors.ts) and the pool drops it when it is released.
  pool.on('connect', (client) => void client.on('error', () => {}));
  return pool;
}

export function createDb(pool: pg.Pool): Db {
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
