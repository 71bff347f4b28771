/** Every pooled connection carries the settings retrieval relies on, set before first use. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPool, HNSW_EF_SEARCH } from '../../db/connect';
import { openEmbeddedDatabase, type EmbeddedDatabase } from '../../db/embedded/open-embedded';

let embedded: EmbeddedDatabase;
beforeAll(async () => {
  embedded = await openEmbeddedDatabase({ dataDir: null });
});
afterAll(async () => {
  await embedded?.close();
});

it('sets iterative HNSW scans on each new connection before handing it out, leaving plan caching to Postgres', async () => {
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  process.on('warning', onWarning);
  const pool = createPool(embedded.connectionString, 3, { embedded: true });
  try {
    const results = await Promise.all(
      [1, 2, 3].map(() => pool.query<{ ef: string; scan: string; plans: string }>(
        "select current_setting('hnsw.ef_search') as ef, current_setting('hnsw.iterative_scan') as scan, current_setting('plan_cache_mode') as plans",
      )),
    );
    expect(results.map((r) => r.rows[0])).toEqual(Array(3).fill({ ef: String(HNSW_EF_SEARCH), scan: 'relaxed_order', plans: 'auto' }));
    expect(pool.totalCount).toBe(3);
  } finally {
    await pool.end();
    process.off('warning', onWarning);
  }
  // The settings must not be queued behind the caller's first query (pg deprecates that).
  expect(warnings.map((w) => w.message)).toEqual([]);
});
