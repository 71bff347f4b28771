import { sql, type Kysely } from 'kysely';

/**
 * Evaluations an organisation runs on its own KB (issue 46, src/services/evals/):
 *   - eval_cases: a KB's test set; a question with what a good answer is (expected text, documents,
 *     pages) or that it is not answerable, and where the case came from;
 *   - eval_runs: one pass of a test set through the answer path, with the cases as they were when it
 *     started (a job that resumes asks the same ones), its progress, the settings it ran with, what
 *     started it, its summary figures and whether it regressed;
 *   - eval_results: per case of a run, what retrieval returned and what the answer was. The case's
 *     question and expectations are copied in, so a run stays readable after its cases change;
 *   - knowledge_bases.eval_settings: top_k the runs ask with, and the regression webhook.
 * Every row belongs to a KB and goes with it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('knowledge_bases').addColumn('eval_settings', 'jsonb').execute();

  await db.schema
    .createTable('eval_cases')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('kb_id', 'text', (c) => c.notNull().references('knowledge_bases.id').onDelete('cascade'))
    .addColumn('question', 'text', (c) => c.notNull())
    .addColumn('expected_answer', 'text')
    .addColumn('expected_documents', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('expected_pages', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('answerable', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('source', 'text', (c) =>
      c.notNull().defaultTo('manual').check(sql`source in ('sandbox', 'conversation', 'unanswered', 'manual', 'import')`),
    )
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('eval_cases_kb_created_idx').on('eval_cases').columns(['kb_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('eval_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('kb_id', 'text', (c) => c.notNull().references('knowledge_bases.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('queued').check(sql`status in ('queued', 'running', 'completed', 'failed')`))
    .addColumn('trigger', 'text', (c) => c.notNull().check(sql`trigger in ('manual', 'reindex', 'recrawl', 'settings', 'cli')`))
    .addColumn('progress_done', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('progress_total', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('settings', 'jsonb', (c) => c.notNull())
    .addColumn('cases', 'jsonb', (c) => c.notNull())
    .addColumn('summary', 'jsonb')
    .addColumn('regression', 'jsonb')
    .addColumn('error', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('started_at', 'timestamptz')
    .addColumn('finished_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('eval_runs_kb_created_idx').on('eval_runs').columns(['kb_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('eval_results')
    .addColumn('run_id', 'text', (c) => c.notNull().references('eval_runs.id').onDelete('cascade'))
    .addColumn('case_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('question', 'text', (c) => c.notNull())
    .addColumn('expected', 'jsonb', (c) => c.notNull())
    .addColumn('passages', 'jsonb', (c) => c.notNull())
    .addColumn('doc_hit_rank', 'integer')
    .addColumn('page_hit_rank', 'integer')
    .addColumn('answer', 'text', (c) => c.notNull())
    .addColumn('answer_contains', 'boolean')
    .addColumn('refused', 'boolean', (c) => c.notNull())
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('judge', 'text', (c) => c.check(sql`judge in ('pass', 'fail', 'error')`))
    .addColumn('judge_note', 'text')
    .addColumn('error', 'text')
    .addPrimaryKeyConstraint('eval_results_pkey', ['run_id', 'case_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('eval_results').execute();
  await db.schema.dropTable('eval_runs').execute();
  await db.schema.dropTable('eval_cases').execute();
  await db.schema.alterTable('knowledge_bases').dropColumn('eval_settings').execute();
}
