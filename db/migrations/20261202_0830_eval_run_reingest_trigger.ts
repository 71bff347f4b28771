import { sql, type Kysely } from 'kysely';

/**
 * Eval runs may start after a document is ingested again (re-parsed, or uploaded again with
 * replace): the trigger `reingest` (src/services/documents/run-ingestion.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('eval_runs').dropConstraint('eval_runs_trigger_check').execute();
  await sql`alter table eval_runs add constraint eval_runs_trigger_check check (trigger in ('manual', 'reindex', 'recrawl', 'reingest', 'settings', 'cli'))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from eval_runs where trigger = 'reingest'`.execute(db);
  await db.schema.alterTable('eval_runs').dropConstraint('eval_runs_trigger_check').execute();
  await sql`alter table eval_runs add constraint eval_runs_trigger_check check (trigger in ('manual', 'reindex', 'recrawl', 'settings', 'cli'))`.execute(db);
}
