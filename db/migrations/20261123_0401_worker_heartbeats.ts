import { sql, type Kysely } from 'kysely';

/**
 * One row per running worker process on PostgreSQL, refreshed every few seconds, naming the
 * graphile-worker ids that process runs. A job locked by a worker no live process names belongs to
 * a process that died (SIGKILL, out of memory, a lost machine) and is unlocked for another worker
 * (src/services/workers/), instead of waiting out graphile-worker's own 4-hour lock timeout.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('worker_heartbeats')
    .addColumn('process_id', 'text', (c) => c.primaryKey())
    .addColumn('worker_ids', sql`text[]`, (c) => c.notNull())
    .addColumn('hostname', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('beat_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('worker_heartbeats').execute();
}
