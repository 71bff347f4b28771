import { sql, type Kysely } from 'kysely';

/**
 * Dashboard sign-in. `admin_sessions` holds one row per signed-in browser: only the sha256 of the
 * cookie's secret is stored, so a database read cannot be replayed as a session. `admin_sign_in_links`
 * holds the one-time links the CLI prints (hashed too, single use, minutes of life). Keyset indexes
 * let the dashboard page through a KB of 100,000 documents (optionally by status) without OFFSET.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('admin_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_via', 'text', (c) => c.notNull().check(sql`created_via in ('api_key', 'link')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('admin_sessions_org_idx').on('admin_sessions').column('org_id').execute();

  await db.schema
    .createTable('admin_sign_in_links')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .execute();

  await db.schema.createIndex('documents_kb_keyset_idx').on('documents').columns(['kb_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('documents_kb_status_keyset_idx').on('documents').columns(['kb_id', 'status', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('documents_kb_status_keyset_idx').execute();
  await db.schema.dropIndex('documents_kb_keyset_idx').execute();
  await db.schema.dropTable('admin_sign_in_links').execute();
  await db.schema.dropTable('admin_sessions').execute();
}
