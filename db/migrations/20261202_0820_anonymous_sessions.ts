import type { Kysely } from 'kysely';

/**
 * Anonymous widget conversations are bounded apart from keyed ones (src/services/chat/sessions.ts):
 * `visitor` is the address a widget or voice conversation was started from (the rate limits' key),
 * so one visitor's conversations are bounded too; null for API and dashboard conversations and for
 * those started before it. The indexes serve the two evictions: per KB and source, per KB and visitor.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('chat_sessions').addColumn('visitor', 'text').execute();
  await db.schema.createIndex('chat_sessions_kb_source_idx').on('chat_sessions').columns(['kb_id', 'source', 'updated_at']).execute();
  await db.schema.createIndex('chat_sessions_kb_visitor_idx').on('chat_sessions').columns(['kb_id', 'visitor', 'updated_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('chat_sessions_kb_visitor_idx').execute();
  await db.schema.dropIndex('chat_sessions_kb_source_idx').execute();
  await db.schema.alterTable('chat_sessions').dropColumn('visitor').execute();
}
