import type { Kysely } from 'kysely';

/**
 * Rate-limit buckets shared by every web process on PostgreSQL (src/http/rate-limit.ts), in the
 * shape rate-limiter-flexible's PostgreSQL store expects: key, points used, expiry in epoch ms.
 * Created here rather than by the library at first use, where web processes starting together race.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('rate_limits')
    .addColumn('key', 'varchar(255)', (c) => c.primaryKey())
    .addColumn('points', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expire', 'bigint')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('rate_limits').execute();
}
