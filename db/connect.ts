/**
 * Kysely over a `pg` Pool. The same Pool shape serves real PostgreSQL and the embedded PGlite
 * (reached over its in-process wire server), so every query path is identical in both modes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { abortablePool } from './abortable';
import type { Database } from './types';

export type Db = Kysely<Database>;

// COUNT(*) and bigint columns arrive as strings by default; our counts fit comfortably in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));

/**
 * HNSW's search breadth: how many nearest vectors the graph walk keeps. With 30, the nearest 30 of a
 * KB of 26,000 passages (FinanceBench's 41 filings) came back with 84% of the exact 30; with 100,
 * 97%, for 0.7 ms more per query (`npm run bench -- vector-recall`, docs/retrieval.md). Candidates
 * the walk misses are never scored, and which ones it misses changed with the order passages were
 * stored in: the same KB ingested twice ranked differently.
 */
export const HNSW_EF_SEARCH = 100;

/**
 * Every connection's settings (pgvector's; unknown to Postgres before pgvector loads, they wait as
 * placeholders). Iterative index scans keep an HNSW search going until it has `limit` rows of the
 * queried KB, however small that KB is within the shared index (src/answering/retrieval/vector-search.ts).
 */
const SESSION_SETTINGS = `set hnsw.iterative_scan = relaxed_order; set hnsw.ef_search = ${HNSW_EF_SEARCH}`;

/**
 * A statement whose text starts with this comment is prepared once per connection (on the embedded
 * database, once per session: SessionStatements below), named after a hash of its text, and
 * executed by name from then on: Postgres parses and analyses it once, and
 * after five executions may reuse one cached plan (plan_cache_mode auto) instead of planning again.
 * Such a statement must have as literals whatever decides its plan (the retrieval statements inline
 * the KB id and their limits, see vector-search.ts): a plan cached without them can be 90 times
 * slower. Each connection keeps its most recently used PREPARED_PER_CONNECTION statements: a
 * retrieval statement with its cached plan holds about 0.5 MB in its backend.
 */
export const PREPARED = '/* prepared */';

export const PREPARED_PER_CONNECTION = 32;

type QueryArgs = [text: unknown, values?: unknown, callback?: unknown];

/** What pg.Client keeps of the statements parsed on its connection (not in pg's typings). */
type ParsedStatements = { parsedStatements: Record<string, string> };

/**
 * The PREPARED statements of one database session, kept for its most recently used
 * PREPARED_PER_CONNECTION texts. On PostgreSQL each connection is a session of its own. The embedded
 * database's connections all reach one session (db/embedded/wire-server.ts), so its pool shares one
 * of these: a statement one connection prepared is run by name from the others. Without that, every
 * retrieval statement was planned again in the session's one thread (1.96 ms of 5.2 ms at 5,000
 * chunks; docs/retrieval.md, prepared statements). What makes sharing safe:
 *  - a name is used only once its Parse has completed (pg marks it parsed on ParseComplete, in the
 *    `parsed` record every client of the session reads), and a connection about to Parse a name
 *    waits while another one is parsing it: two Parses of one name would collide in the session;
 *  - a statement is deallocated only while no connection is using it, and a text prepared again
 *    afterwards gets a new name, so a late DEALLOCATE (sent on another socket, in no guaranteed
 *    order) can never remove it. Only the kept statements' names are remembered.
 */
class SessionStatements {
  /** pg's `parsedStatements`, shared: the names the session has prepared. */
  readonly parsed: Record<string, string> = {};
  /** Each kept text's current name (by the hash of the text). */
  readonly #names = new Map<string, string>();
  #serial = 0;
  readonly #parsing = new Map<string, Promise<unknown>>();
  readonly #uses = new Map<string, number>();
  /** Kept names (with the hash each was made from) by last use, least recent first. */
  readonly #recent = new Map<string, string>();

  /**
   * Other pools reach the embedded session (the inline worker's, in its thread), each with a
   * registry of its own: their names must differ.
   */
  readonly #registry = randomBytes(4).toString('hex');

  async run<T>(text: string, client: pg.Client, send: (name: string) => Promise<T>): Promise<T> {
    const hash = createHash('sha1').update(text).digest('base64url').slice(0, 20);
    let name = this.#names.get(hash);
    if (name === undefined) this.#names.set(hash, (name = `gw_${hash}_${this.#registry}_${++this.#serial}`));
    this.#uses.set(name, (this.#uses.get(name) ?? 0) + 1);
    try {
      for (let parsing = this.#parsing.get(name); parsing; parsing = this.#parsing.get(name)) await parsing.catch(() => {});
      if (name in this.parsed) return await send(name);
      const sent = send(name);
      this.#parsing.set(name, sent);
      try {
        return await sent;
      } finally {
        this.#parsing.delete(name);
      }
    } finally {
      const uses = this.#uses.get(name)! - 1;
      if (uses > 0) this.#uses.set(name, uses);
      else this.#uses.delete(name);
      this.#recent.delete(name);
      this.#recent.set(name, hash);
      this.#evict(client);
    }
  }

  #evict(client: pg.Client) {
    for (const [name, hash] of this.#recent) {
      if (this.#recent.size <= PREPARED_PER_CONNECTION) return;
      if (this.#uses.has(name) || this.#parsing.has(name)) continue;
      this.#recent.delete(name);
      if (this.#names.get(hash) === name) this.#names.delete(hash);
      if (!(name in this.parsed)) continue; // its Parse failed: the session has nothing to free
      delete this.parsed[name];
      client.query(`deallocate "${name}"`).catch(() => {});
    }
  }
}

/**
 * A pg.Client class whose `query` runs PREPARED statements by name, kept in `shared` (the embedded
 * session's) or, without it, in each connection's own. Typed loosely: pg's overloads cannot be
 * forwarded one by one.
 */
function preparingClient(shared: SessionStatements | null): typeof pg.Client {
  return class PreparingClient extends pg.Client {
    readonly #statements = shared ?? new SessionStatements();

    constructor(config?: string | pg.ClientConfig) {
      super(config);
      (this as unknown as { connection: ParsedStatements }).connection.parsedStatements = this.#statements.parsed;
    }

    override query(...args: QueryArgs): never {
      const [text, values, callback] = args;
      const query = super.query.bind(this) as (...a: unknown[]) => Promise<unknown>;
      if (typeof text !== 'string' || !text.startsWith(PREPARED)) return query(...args) as never;
      const result = this.#statements.run(text, this, (name) => query({ name, text, values }));
      if (typeof callback !== 'function') return result as never;
      result.then((res) => callback(null, res), (err: unknown) => callback(err));
      return undefined as never;
    }
  };
}

/**
 * On the embedded database every statement runs one after another, so under load a connection can
 * legitimately wait longer for its turn than a PostgreSQL client should ever wait for a connection.
 */
export function createPool(connectionString: string, max: number, opts: { embedded?: boolean } = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    Client: preparingClient(opts.embedded ? new SessionStatements() : null),
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
  if (opts.embedded) embeddedPools.add(pool);
  return pool;
}

/** The embedded database's pools: their statements cannot be interrupted (db/abortable.ts). */
const embeddedPools = new WeakSet<pg.Pool>();
/** Each Db's pool, for the request views abortableDb makes of it. */
const pools = new WeakMap<Db, pg.Pool>();

export function createDb(pool: pg.Pool): Db {
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  pools.set(db, pool);
  return db;
}

/**
 * `db` for one request: the same pool, with every statement stopped by `signal` (db/abortable.ts).
 * A Db not made by createDb (none in the service) is returned as it is.
 */
export function abortableDb(db: Db, signal: AbortSignal): Db {
  const pool = pools.get(db);
  if (!pool) return db;
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: abortablePool(pool, signal, { cancelRunning: !embeddedPools.has(pool) }) }) });
}
