import { sql, type Kysely } from 'kysely';

/**
 * People who sign in as themselves, with a role; invitations that make them; API key scopes; and
 * the audit log. `users.email` is unique across the deployment (stored lower-cased), so sign-in
 * needs no organisation. `audit_log` is append-only: a trigger refuses UPDATE always and DELETE
 * while its organisation exists, so not even a service bug can rewrite who did what.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text')
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('owner', 'admin', 'editor', 'viewer')`))
    .addColumn('password_hash', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('password_changed_at', 'timestamptz')
    .addColumn('disabled_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('users_org_idx').on('users').column('org_id').execute();

  await db.schema
    .createTable('invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('owner', 'admin', 'editor', 'viewer')`))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('invited_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('accepted_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('invitations_org_idx').on('invitations').column('org_id').execute();

  await db.schema.alterTable('admin_sessions').addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade')).execute();
  await db.schema.alterTable('admin_sessions').addColumn('ip', 'text').execute();
  await db.schema.alterTable('admin_sessions').addColumn('user_agent', 'text').execute();
  await db.schema.alterTable('admin_sessions').addColumn('last_seen_at', 'timestamptz').execute();
  await sql`alter table admin_sessions drop constraint if exists admin_sessions_created_via_check`.execute(db);
  await sql`alter table admin_sessions add constraint admin_sessions_created_via_check check (created_via in ('api_key', 'link', 'password', 'invitation'))`.execute(db);
  await db.schema.alterTable('admin_sign_in_links').addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade')).execute();

  await db.schema.alterTable('api_keys').addColumn('scope', 'text', (c) => c.notNull().defaultTo('full').check(sql`scope in ('full', 'query')`)).execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('actor_label', 'text', (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text')
    .addColumn('changes', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();
  await db.schema.createIndex('audit_log_org_at_idx').on('audit_log').columns(['org_id', 'at', 'id']).execute();
  await sql`
    create function audit_log_append_only() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' and not exists (select 1 from organizations where id = old.org_id) then
        return old;
      end if;
      raise exception 'audit_log is append-only';
    end $$`.execute(db);
  await sql`create trigger audit_log_append_only before update or delete on audit_log for each row execute function audit_log_append_only()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger if exists audit_log_append_only on audit_log`.execute(db);
  await sql`drop function if exists audit_log_append_only()`.execute(db);
  await db.schema.dropTable('audit_log').execute();
  await db.schema.alterTable('api_keys').dropColumn('scope').execute();
  await db.schema.alterTable('admin_sign_in_links').dropColumn('user_id').execute();
  await sql`alter table admin_sessions drop constraint if exists admin_sessions_created_via_check`.execute(db);
  await sql`alter table admin_sessions add constraint admin_sessions_created_via_check check (created_via in ('api_key', 'link'))`.execute(db);
  for (const col of ['last_seen_at', 'user_agent', 'ip', 'user_id']) await db.schema.alterTable('admin_sessions').dropColumn(col).execute();
  await db.schema.dropTable('invitations').execute();
  await db.schema.dropTable('users').execute();
}
