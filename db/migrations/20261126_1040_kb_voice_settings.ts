import type { Kysely } from 'kysely';

/**
 * A knowledge base may override its organisation's voice settings (issue 24): the fields it sets,
 * as a jsonb document validated by src/services/voice/voice-settings.ts; null inherits them all.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('knowledge_bases').addColumn('voice_settings', 'jsonb').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('knowledge_bases').dropColumn('voice_settings').execute();
}
