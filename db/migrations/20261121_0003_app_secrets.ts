import { sql, type Kysely } from 'kysely';

/**
 * Process-shared secrets generated on first use (today: the widget token signing key when
 * WIDGET_TOKEN_SECRET is not configured). Kept in the database so every web process of an install
 * signs and verifies with the same key without any configuration.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('app_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('app_secrets').execute();
}
