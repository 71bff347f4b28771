import { sql, type Kysely } from 'kysely';

/**
 * What the dashboard's Conversations, Unanswered questions and charts read:
 *   - chat_sessions.source: where the conversation was started (api, widget, voice, sandbox);
 *   - per answer: refused (the answer path's own decision) and support (best cited score), and the
 *     visitor's feedback (+1 / -1, optional comment);
 *   - per question: its embedding, filled lazily when Unanswered questions groups it;
 *   - usage_daily: per organisation, KB and day, questions, refusals and feedback. It has no foreign
 *     key to the KB, so deleting a KB (which deletes its conversations) keeps the aggregate usage.
 * Existing sessions are backfilled as api, or voice when a voice session used them; existing
 * messages are counted into usage_daily.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('chat_sessions')
    .addColumn('source', 'text', (c) => c.notNull().defaultTo('api').check(sql`source in ('api', 'widget', 'voice', 'sandbox')`))
    .execute();
  await sql`update chat_sessions s set source = 'voice' where exists (select 1 from voice_sessions v where v.chat_session_id = s.id)`.execute(db);
  await db.schema.createIndex('chat_sessions_kb_updated_idx').on('chat_sessions').columns(['kb_id', 'updated_at', 'id']).execute();

  await db.schema
    .alterTable('chat_messages')
    .addColumn('refused', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('support', 'real')
    .addColumn('feedback', 'smallint', (c) => c.check(sql`feedback in (-1, 1)`))
    .addColumn('feedback_comment', 'text')
    .addColumn('feedback_at', 'timestamptz')
    .addColumn('embedding', 'bytea')
    .addColumn('embedding_model', 'text')
    .execute();
  await db.schema.createIndex('chat_messages_session_created_idx').on('chat_messages').columns(['session_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('usage_daily')
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('kb_id', 'text', (c) => c.notNull())
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('questions', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('refused', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('feedback_up', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('feedback_down', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('usage_daily_pkey', ['org_id', 'day', 'kb_id'])
    .execute();
  await sql`insert into usage_daily (org_id, kb_id, day, questions, refused)
    select s.org_id, s.kb_id, (m.created_at at time zone 'UTC')::date, count(*) filter (where m.role = 'user'), 0
    from chat_messages m join chat_sessions s on s.id = m.session_id
    group by 1, 2, 3
    having count(*) filter (where m.role = 'user') > 0`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('usage_daily').execute();
  await db.schema.dropIndex('chat_messages_session_created_idx').execute();
  await db.schema
    .alterTable('chat_messages')
    .dropColumn('refused')
    .dropColumn('support')
    .dropColumn('feedback')
    .dropColumn('feedback_comment')
    .dropColumn('feedback_at')
    .dropColumn('embedding')
    .dropColumn('embedding_model')
    .execute();
  await db.schema.dropIndex('chat_sessions_kb_updated_idx').execute();
  await db.schema.alterTable('chat_sessions').dropColumn('source').execute();
}
