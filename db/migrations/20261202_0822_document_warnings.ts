import { sql, type Kysely } from 'kysely';

/**
 * What a person should check on a ready document (src/ingest/types.ts DocumentWarning): pages OCR
 * was unsure of, or could not read and left out. Empty for a document read with confidence.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('documents').addColumn('warnings', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('documents').dropColumn('warnings').execute();
}
