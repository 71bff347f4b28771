import { sql, type Kysely } from 'kysely';

/**
 * Voice against the real Realtime API (issue 24):
 * - chat_messages.interrupted: a spoken answer stored as heard, cut by barge-in, stop, a drop or the
 *   model's own limit (typed answers are never interrupted);
 * - voice_sessions token columns: usage from each `response.done`, next to the seconds;
 * - voice_provider_refusals: an upstream that refused the API key (401/403), by key fingerprint, so
 *   voice stays unavailable, with the reason, until the key changes.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('chat_messages').addColumn('interrupted', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
  for (const column of ['input_tokens', 'output_tokens', 'cached_input_tokens', 'audio_input_tokens', 'audio_output_tokens']) {
    await db.schema.alterTable('voice_sessions').addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  }
  await db.schema
    .createTable('voice_provider_refusals')
    .addColumn('key_fingerprint', 'text', (c) => c.primaryKey())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('code', 'text')
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('refused_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('voice_provider_refusals').execute();
  for (const column of ['input_tokens', 'output_tokens', 'cached_input_tokens', 'audio_input_tokens', 'audio_output_tokens']) {
    await db.schema.alterTable('voice_sessions').dropColumn(column).execute();
  }
  await db.schema.alterTable('chat_messages').dropColumn('interrupted').execute();
}
