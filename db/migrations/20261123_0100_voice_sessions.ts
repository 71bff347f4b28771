import { sql, type Kysely } from 'kysely';

/**
 * One row per voice session: what the gateway meters. Started when the upstream is ready, closed
 * with its length when the session ends; an organisation's voice seconds are the sum. Rows of a
 * process that died mid-session keep ended_at null and count nothing.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('voice_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('kb_id', 'text', (c) => c.notNull())
    .addColumn('chat_session_id', 'text')
    .addColumn('started_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('ended_at', 'timestamptz')
    .addColumn('seconds', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('audio_in_seconds', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('audio_out_seconds', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('end_reason', 'text')
    .execute();
  await db.schema.createIndex('voice_sessions_org_idx').on('voice_sessions').columns(['org_id', 'started_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('voice_sessions').execute();
}
