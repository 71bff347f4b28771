import { sql, type Kysely } from 'kysely';

/**
 * Voice concurrency leases: one row per open voice session, whichever web process holds it, so an
 * organisation's plan limit holds across all web processes. The holding process renews its rows'
 * expiry every few seconds; the rows of a process that died expire and stop counting.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('voice_slots')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('acquired_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('voice_slots_org_idx').on('voice_slots').columns(['org_id', 'expires_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('voice_slots').execute();
}
