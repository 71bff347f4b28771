import type { Kysely } from 'kysely';

/**
 * Where a processing document has got: its stage and done/total of a unit (pages or chunks).
 * Written by the ingestion job a few times a second at most; cleared when the document settles.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('documents')
    .addColumn('stage', 'text')
    .addColumn('progress_done', 'integer')
    .addColumn('progress_total', 'integer')
    .addColumn('progress_unit', 'text')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('documents').dropColumn('stage').dropColumn('progress_done').dropColumn('progress_total').dropColumn('progress_unit').execute();
}
