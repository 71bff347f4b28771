/**
 * Statements marked PREPARED (the retrieval statements) are parsed once per PostgreSQL connection
 * and run by name, yet planned on every execution; on the embedded database, where all connections
 * share one session, they run unnamed.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PREPARED } from '../../db/connect';
import type { DatabaseHandle } from '../../db/open-database';
import { createTestDatabase } from '../helpers/test-database';

let handle: DatabaseHandle;
beforeAll(async () => {
  handle = await createTestDatabase();
});
afterAll(async () => {
  await handle?.close();
});

it('runs by name on PostgreSQL, planned with each execution’s parameters', async () => {
  const text = `${PREPARED} select $1::int + 1 as n`;
  const client = await handle.pool.connect();
  try {
    for (const i of [1, 2, 3]) expect((await client.query(text, [i])).rows).toEqual([{ n: i + 1 }]);
    const { rows } = await client.query(`select statement, custom_plans, generic_plans from pg_prepared_statements where statement like '/* prepared */%'`);
    if (handle.mode === 'postgres') expect(rows).toEqual([{ statement: text, custom_plans: 3, generic_plans: 0 }]);
    else expect(rows).toEqual([]);
    // Unmarked statements stay unnamed.
    await client.query('select $1::int as n', [1]);
    expect((await client.query(`select count(*) as n from pg_prepared_statements where statement not like '/* prepared */%'`)).rows).toEqual([{ n: 0 }]);
  } finally {
    client.release();
  }
});
