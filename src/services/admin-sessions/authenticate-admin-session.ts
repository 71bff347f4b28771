/**
 * Resolves a dashboard session cookie to its organisation. Unknown, expired and revoked sessions
 * are the same 401. Whether the request may use a cookie at all (origin, CSRF guard) is decided by
 * the HTTP layer before this is called.
 */
import { ORG_COLUMNS } from '../orgs/org-columns';
import type { AppDeps } from '../../context';
import type { Organization, Role } from '../../../db/types';
import { AppError } from '../../errors';
import type { AdminSessionId, UserId } from '../../ids';
import { hashSecret, SECRET_SHAPE } from './admin-session-secret';
import type { Actor } from '../access/actor';
import { recordAudit } from '../audit/record-audit';

export async function authenticateAdminSession(
  deps: Pick<AppDeps, 'db'>,
  secret: string,
): Promise<{ org: Organization; sessionId: AdminSessionId; expiresAt: Date; user: { id: UserId; email: string; role: Role } | null; via: string }> {
  const invalid = new AppError('unauthorized', 'Your dashboard session has ended: sign in again');
  if (!SECRET_SHAPE.test(secret)) throw invalid;
  const row = await deps.db
    .selectFrom('admin_sessions')
    .innerJoin('organizations', 'organizations.id', 'admin_sessions.org_id')
    .leftJoin('users', 'users.id', 'admin_sessions.user_id')
    .select([
      'admin_sessions.id as session_id',
      'admin_sessions.expires_at',
      'admin_sessions.created_via',
      'admin_sessions.user_id',
      'admin_sessions.last_seen_at',
      'users.email as user_email',
      'users.role as user_role',
      'users.disabled_at as user_disabled_at',
      ...ORG_COLUMNS,
    ])
    .where('admin_sessions.secret_hash', '=', hashSecret(secret))
    .where('admin_sessions.revoked_at', 'is', null)
    .where('admin_sessions.expires_at', '>', new Date())
    .executeTakeFirst();
  if (!row) throw invalid;
  const { session_id, expires_at, created_via, user_id, last_seen_at, user_email, user_role, user_disabled_at, ...org } = row;
  // A person's session ends with their account (removed members are disabled).
  if (user_id && (user_disabled_at || !user_email || !user_role)) throw invalid;
  // "Last seen" for the sessions list, written at most once a minute per session.
  if (!last_seen_at || Date.now() - last_seen_at.getTime() > 60_000) {
    await deps.db.updateTable('admin_sessions').set({ last_seen_at: new Date() }).where('id', '=', session_id).execute();
  }
  return { org, sessionId: session_id, expiresAt: expires_at, via: created_via, user: user_id ? { id: user_id, email: user_email!, role: user_role! } : null };
}

/** Sign out: the session stops working at once, wherever its cookie was copied to; recorded in the audit log. */
export async function revokeAdminSession(deps: Pick<AppDeps, 'db'>, secret: string, ip: string | null = null): Promise<void> {
  if (!SECRET_SHAPE.test(secret)) return;
  const row = await deps.db
    .updateTable('admin_sessions')
    .set({ revoked_at: new Date() })
    .where('secret_hash', '=', hashSecret(secret))
    .where('revoked_at', 'is', null)
    .returning(['id', 'org_id', 'user_id', 'created_via'])
    .executeTakeFirst();
  if (!row) return;
  const org = await deps.db.selectFrom('organizations').selectAll().where('id', '=', row.org_id).executeTakeFirstOrThrow();
  const user = row.user_id ? await deps.db.selectFrom('users').select(['id', 'email', 'role']).where('id', '=', row.user_id).executeTakeFirst() : null;
  const actor: Actor = user
    ? { type: 'user', id: user.id, label: user.email, role: user.role, scope: 'full', ip }
    : { type: 'key_session', id: null, label: 'dashboard session (API key)', role: 'owner', scope: 'full', ip };
  await recordAudit({ db: deps.db, org, actor }, { action: 'session.sign_out', targetType: 'session', targetId: row.id, changes: { via: row.created_via } });
}
