/**
 * The embedded database's stand-in for autovacuum's ANALYZE. PGlite runs Postgres as a single
 * backend with no autovacuum worker, so table statistics were never collected and the planner kept
 * guessing: on a 50,000-chunk KB it passed over the HNSW index and a search took 188 ms; on 8,000
 * chunks, 31.5 ms before ANALYZE and 9.8 ms after.
 *
 * Like autovacuum, it analyzes a table once more than 50 rows + 10% of the table changed since its
 * last analysis. It goes through the wire server like any client, so it never runs inside another
 * connection's transaction.
 */
import type pg from 'pg';
import type { Logger } from '../../src/logger';

/**
 * ANALYZE samples 300 rows per unit of statistics target, whole rows: at PostgreSQL's default of
 * 100 that was every row of a 13,575-chunk document (text and a 512-dimension vector each), and
 * PGlite's WebAssembly memory, which never shrinks, grew from 128 to 265 MB for good the first time
 * it ran (docs/architecture.md, the embedded database). 10 samples 3,000 rows.
 */
export const STATISTICS_TARGET = 10;

/** Analyzes the tables that changed enough; returns their names. */
export async function analyzeChangedTables(db: Pick<pg.Pool, 'query'>): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(`
    select format('%I.%I', schemaname, relname) as name from pg_stat_user_tables
    where n_mod_since_analyze > 50 + 0.1 * n_live_tup
    order by n_mod_since_analyze desc`);
  // One statement, so the setting lasts only for this ANALYZE: every connection shares the one session.
  for (const { name } of rows) await db.query(`do $analyze$ begin perform set_config('default_statistics_target', '${STATISTICS_TARGET}', true); analyze ${name}; end $analyze$`);
  return rows.map((r) => r.name);
}

export function startAutoAnalyze(db: Pick<pg.Pool, 'query'>, logger: Pick<Logger, 'debug' | 'warn'>, intervalMs = 30_000) {
  let running: Promise<void> | null = null;
  const tick = () => {
    running ??= analyzeChangedTables(db)
      .then((tables) => void (tables.length > 0 && logger.debug({ tables }, 'analyzed changed tables')))
      .catch((err) => logger.warn({ err }, 'analyzing changed tables failed'))
      .finally(() => (running = null));
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    /** Stops the timer and waits for a run in progress, so the pool can be closed after. */
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
