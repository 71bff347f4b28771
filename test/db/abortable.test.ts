/**
 * A read's view of the database (db/abortable.ts) on the embedded database, where a running
 * statement cannot be interrupted: once the signal aborts, no further statement starts, and a
 * transaction it was in is still rolled back, so the one session is not left held (every other
 * connection would wait behind it). Cancelling a running statement on PostgreSQL is covered over
 * HTTP in test/http/read-cancel.test.ts.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { abortableDb } from '../../db/connect';
import type { DatabaseHandle } from '../../db/open-database';
import { createTestDatabase } from '../helpers/test-database';

let database: DatabaseHandle;
beforeAll(async () => {
  database = await createTestDatabase();
  await sql`create table stops (label text)`.execute(database.db);
});
afterAll(() => database?.close());

const labels = async () => (await sql<{ label: string }>`select label from stops order by label`.execute(database.db)).rows.map((r) => r.label);

describe('a database view stopped by a signal', () => {
  it('runs statements while the signal has not aborted', async () => {
    const view = abortableDb(database.db, new AbortController().signal);
    await sql`insert into stops values ('kept')`.execute(view);
    expect(await labels()).toEqual(['kept']);
  });

  it('starts no statement once the signal has aborted, and says why', async () => {
    const client = new AbortController();
    const view = abortableDb(database.db, client.signal);
    client.abort();
    await expect(sql`insert into stops values ('never')`.execute(view)).rejects.toMatchObject({ name: 'AppError', code: 'cancelled' });
    expect(await labels()).toEqual(['kept']);
  });

  it('stops between the statements of a transaction and still rolls it back', async () => {
    const client = new AbortController();
    const view = abortableDb(database.db, client.signal);
    const run = view.transaction().execute(async (trx) => {
      await sql`insert into stops values ('first')`.execute(trx);
      client.abort();
      await sql`insert into stops values ('second')`.execute(trx);
    });
    await expect(run).rejects.toMatchObject({ code: 'cancelled' });
    // Rolled back, and the session free again: this read would wait behind an open transaction.
    expect(await labels()).toEqual(['kept']);
  });
});
