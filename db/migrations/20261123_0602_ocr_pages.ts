import { sql, type Kysely } from 'kysely';

/** The pages of a document whose text was read by OCR (1-based); empty when none was. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('documents').addColumn('ocr_pages', sql`integer[]`, (c) => c.notNull().defaultTo(sql`'{}'::integer[]`)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('documents').dropColumn('ocr_pages').execute();
}
