/**
 * Opens a dashboard session: a person with email and password, an invitation just accepted, a
 * one-time link (printed by the CLI or made by a password reset), or an API key (acting as an
 * owner). Returns the cookie secret once; only its hash is stored. Every sign-in is audited.
 */
import { sql } from 'kysely';
import type { AppDeps } from '../../context';
import { AppError } from '../../errors';
import { newId, type OrgId, type UserId } from '../../ids';
import type { UserRow } from '../../../db/types';
import { apiKeyActor, type Actor } from '../access/actor';
import { authenticateApiKey } from '../api-keys/authenticate-api-key';
import { recordAudit } from '../audit/record-audit';
import { verifyPassword } from '../people/password-hash';
import { hashSecret, newSecret, SECRET_SHAPE, SESSION_TTL_MS } from './admin-session-secret';

export type StartedAdminSession = { secret: string; expires_at: Date; org_id: OrgId; user_id: UserId | null };
/** Where the request came from, kept on the session so members can see and revoke it. */
export type SignInClient = { ip?: string | null; userAgent?: string | null };
type Via = 'api_key' | 'link' | 'password' | 'invitation';

const userActor = (u: Pick<UserRow, 'id' | 'email' | 'role'>, ip: string | null): Actor => ({ type: 'user', id: u.id, label: u.email, role: u.role, scope: 'full', ip });

async function openSession(deps: Pick<AppDeps, 'db'>, orgId: OrgId, via: Via, actor: Actor, client: SignInClient): Promise<StartedAdminSession> {
  const secret = newSecret();
  const expires = new Date(Date.now() + SESSION_TTL_MS);
  const userId = actor.type === 'user' ? (actor.id as UserId) : null;
  const id = newId('adminSession');
  await deps.db
    .insertInto('admin_sessions')
    .values({
      id,
      org_id: orgId,
      user_id: userId,
      secret_hash: hashSecret(secret),
      created_via: via,
      created_at: new Date(),
      expires_at: expires,
      revoked_at: null,
      ip: client.ip ?? null,
      user_agent: client.userAgent?.slice(0, 300) ?? null,
      last_seen_at: new Date(),
    })
    .execute();
  const org = await deps.db.selectFrom('organizations').selectAll().where('id', '=', orgId).executeTakeFirstOrThrow();
  await recordAudit({ db: deps.db, org, actor }, { action: 'session.sign_in', targetType: 'session', targetId: id, changes: { via, user_agent: client.userAgent?.slice(0, 300) ?? null } });
  // Expired rows are useless; dropping them here keeps the table bounded without a cron.
  await sql`delete from admin_sessions where expires_at < now() - interval '1 day'`.execute(deps.db);
  return { secret, expires_at: expires, org_id: orgId, user_id: userId };
}

export async function signInWithApiKey(deps: Pick<AppDeps, 'db' | 'logger'>, apiKey: string, client: SignInClient = {}): Promise<StartedAdminSession> {
  const { org, apiKeyId, prefix, scope } = await authenticateApiKey(deps, apiKey);
  if (scope !== 'full') throw new AppError('forbidden', 'A query key cannot sign in to the dashboard: use a full key, or your email and password');
  const key = apiKeyActor({ id: apiKeyId, prefix, scope }, client.ip);
  return openSession(deps, org.id, 'api_key', { ...key, type: 'key_session' }, client);
}

/** Email and password; an unknown email, a wrong password and a removed account are the same 401. */
export async function signInWithPassword(deps: Pick<AppDeps, 'db'>, email: string, password: string, client: SignInClient = {}): Promise<StartedAdminSession> {
  const user = await deps.db.selectFrom('users').selectAll().where('email', '=', email.trim().toLowerCase()).where('disabled_at', 'is', null).executeTakeFirst();
  const ok = await verifyPassword(password, user?.password_hash ?? null);
  if (!user || !ok) throw new AppError('unauthorized', 'That email and password do not match an account');
  return openSession(deps, user.org_id, 'password', userActor(user, client.ip ?? null), client);
}

/** Right after an invitation is accepted. */
export function signInAfterInvitation(deps: Pick<AppDeps, 'db'>, user: UserRow, client: SignInClient = {}): Promise<StartedAdminSession> {
  return openSession(deps, user.org_id, 'invitation', userActor(user, client.ip ?? null), client);
}

/** Redeems a one-time link: valid once, before its expiry; any other case is the same 401. */
export async function signInWithLink(deps: Pick<AppDeps, 'db'>, token: string, client: SignInClient = {}): Promise<StartedAdminSession> {
  const invalid = new AppError('unauthorized', 'This sign-in link is invalid, expired or already used');
  if (!SECRET_SHAPE.test(token)) throw invalid;
  const row = await deps.db
    .updateTable('admin_sign_in_links')
    .set({ used_at: new Date() })
    .where('token_hash', '=', hashSecret(token))
    .where('used_at', 'is', null)
    .where('expires_at', '>', new Date())
    .returning(['org_id', 'user_id'])
    .executeTakeFirst();
  if (!row) throw invalid;
  if (row.user_id) {
    const user = await deps.db.selectFrom('users').selectAll().where('id', '=', row.user_id).where('disabled_at', 'is', null).executeTakeFirst();
    if (!user) throw invalid;
    return openSession(deps, row.org_id, 'link', userActor(user, client.ip ?? null), client);
  }
  const keySession: Actor = { type: 'key_session', id: null, label: 'one-time link', role: 'owner', scope: 'full', ip: client.ip ?? null };
  return openSession(deps, row.org_id, 'link', keySession, client);
}
