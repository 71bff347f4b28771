/**
 * The embedded database has no autovacuum, so the service analyzes changed tables itself; without
 * statistics the planner passes over the vector index.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeChangedTables, startAutoAnalyze, STATISTICS_TARGET } from '../../db/embedded/auto-analyze';
import { openEmbeddedDatabase, type EmbeddedDatabase } from '../../db/embedded/open-embedded';

let embedded: EmbeddedDatabase;
let pool: pg.Pool;
beforeAll(async () => {
  embedded = await openEmbeddedDatabase({ dataDir: null });
  pool = new pg.Pool({ connectionString: embedded.connectionString, max: 2 });
});
afterAll(async () => {
  await pool?.end();
  await embedded?.close();
});

/** Postgres publishes a backend's table counters at most once a second; publish them now. */
const flushStats = () => pool.query('select pg_stat_force_next_flush()');

const reltuples = async (table: string) =>
  Number((await pool.query<{ n: number }>('select reltuples::float8 as n from pg_class where relname = $1', [table])).rows[0]!.n);

describe('analyzing changed tables', () => {
  it('gives a table that changed enough its statistics, once', async () => {
    await pool.query('create table facts (x int)');
    await pool.query('insert into facts select generate_series(1, 500)');
    await flushStats();
    expect(await reltuples('facts')).toBe(-1); // never analyzed: the planner has to guess

    expect(await analyzeChangedTables(pool)).toContain('public.facts');
    expect(await reltuples('facts')).toBe(500);
    expect(await analyzeChangedTables(pool)).not.toContain('public.facts');
    // Sampled at the embedded target (a histogram of target + 1 bounds; PostgreSQL's default of 100
    // would give 101), and the setting did not outlive the ANALYZE in the one shared session.
    const { rows } = await pool.query<{ bounds: number }>(`select array_length(histogram_bounds::text::int[], 1) as bounds from pg_stats where tablename = 'facts' and attname = 'x'`);
    expect(rows).toEqual([{ bounds: STATISTICS_TARGET + 1 }]);
    expect((await pool.query('show default_statistics_target')).rows).toEqual([{ default_statistics_target: '100' }]);

    await pool.query('insert into facts select generate_series(1, 20)'); // below 50 + 10%
    await flushStats();
    expect(await analyzeChangedTables(pool)).not.toContain('public.facts');
  });

  it('runs on a timer until stopped', async () => {
    await pool.query('create table later (x int)');
    await pool.query('insert into later select generate_series(1, 300)');
    const warnings: unknown[] = [];
    const analyzer = startAutoAnalyze(pool, { debug: () => {}, warn: (o: unknown) => warnings.push(o) }, 20);
    const deadline = Date.now() + 10_000;
    while ((await reltuples('later')) !== 300 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await analyzer.stop();
    expect(await reltuples('later')).toBe(300);
    expect(warnings).toEqual([]);
  });
});
