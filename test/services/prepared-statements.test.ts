/**
 * Statements marked PREPARED (the retrieval statements) are parsed once per PostgreSQL connection
 * and run by name, Postgres choosing between plans made per execution and one cached plan; each
 * connection keeps a bounded number of them. On the embedded database, where all connections share
 * one session, the pool's connections share the session's statements, bounded the same way.
 */
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPool, PREPARED, PREPARED_PER_CONNECTION } from '../../db/connect';
import type { DatabaseHandle } from '../../db/open-database';
import { createTestDatabase } from '../helpers/test-database';

let handle: DatabaseHandle;
beforeAll(async () => {
  handle = await createTestDatabase();
});
afterAll(async () => {
  await handle?.close();
});

const preparedOnServer = `select statement, custom_plans, generic_plans from pg_prepared_statements where statement like '/* prepared */%' order by prepare_time`;

it('runs by name, with a cached plan after five executions', async () => {
  const text = `${PREPARED} select count(*)::int + $1::int as n from knowledge_bases where id = $2`;
  const client = await handle.pool.connect();
  try {
    for (const i of [1, 2, 3, 4, 5, 6, 7]) expect((await client.query(text, [i, 'kb_none'])).rows).toEqual([{ n: i }]);
    const { rows } = await client.query(preparedOnServer);
    expect(rows).toEqual([{ statement: text, custom_plans: 5, generic_plans: 2 }]);
    // Unmarked statements stay unnamed.
    await client.query('select $1::int as n', [1]);
    expect((await client.query(`select count(*) as n from pg_prepared_statements where statement not like '/* prepared */%'`)).rows).toEqual([{ n: 0 }]);
  } finally {
    client.release();
  }
});

it('keeps the most recently used statements of a connection (the session, embedded), and prepares an evicted one again', async () => {
  const client = await handle.pool.connect();
  const text = (i: number) => `${PREPARED} select ${i} + $1::int as n`;
  try {
    for (let i = 0; i <= PREPARED_PER_CONNECTION; i++) expect((await client.query(text(i), [1])).rows).toEqual([{ n: i + 1 }]);
    const { rows } = await client.query(preparedOnServer);
    // Every statement but the first, the least recently used: compared as a set, since two prepared
    // within the same tick of PGlite's clock tie on prepare_time.
    const kept = Array.from({ length: PREPARED_PER_CONNECTION }, (_, i) => text(i + 1));
    expect(rows.map((r) => r.statement).sort()).toEqual(kept.sort());
    // The evicted first statement comes back (evicting the next oldest), and runs.
    expect((await client.query(text(0), [2])).rows).toEqual([{ n: 2 }]);
    const after = (await client.query(preparedOnServer)).rows.map((r) => r.statement);
    expect(after.length).toBe(PREPARED_PER_CONNECTION);
    expect(after).toContain(text(0));
    expect(after).not.toContain(text(1));
  } finally {
    client.release();
  }
});

it("shares the session's statements among the embedded pool's connections, under concurrent first use and eviction", async () => {
  // More texts than the session keeps, each used by four connections at once: a name is never
  // bound before its Parse completed, parsed twice at once, or deallocated while in use.
  const text = (i: number) => `${PREPARED} select ${i} * 1000 + $1::int as n`;
  const texts = PREPARED_PER_CONNECTION + 8;
  const ask = async (k: number) => {
    const client = await handle.pool.connect();
    try {
      return (await client.query(text(Math.floor(k / 4) % texts), [k])).rows[0].n as number;
    } finally {
      client.release();
    }
  };
  for (let round = 0; round < 3; round++) {
    const ks = Array.from({ length: 4 * texts }, (_, k) => k);
    expect(await Promise.all(ks.map(ask))).toEqual(ks.map((k) => (Math.floor(k / 4) % texts) * 1000 + k));
  }
  const { rows } = await handle.pool.query(preparedOnServer);
  expect(rows.length).toBeGreaterThan(0);
  if (handle.mode === 'embedded') expect(rows.length).toBeLessThanOrEqual(PREPARED_PER_CONNECTION);
});

it("keeps apart the statements of two pools on one embedded session (the web's and the inline worker's)", async () => {
  const [web, worker] = [1, 2].map(() => createPool(handle.connectionString, 2, { embedded: handle.mode === 'embedded' })) as [pg.Pool, pg.Pool];
  const text = `${PREPARED} select $1::int + 700 as n`;
  try {
    for (const pool of [web, worker, web, worker]) {
      const client = await pool.connect();
      try {
        expect((await client.query(text, [1])).rows).toEqual([{ n: 701 }]);
      } finally {
        client.release();
      }
    }
  } finally {
    await Promise.all([web.end(), worker.end()]);
  }
});
