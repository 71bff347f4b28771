/**
 * Resolves a dashboard session cookie to its organisation. Unknown, expired and revoked sessions
 * are the same 401. Whether the request may use a cookie at all (origin, CSRF guard) is decided by
 * the HTTP layer before this is called.
 */
import { ORG_COLUMNS } from '../orgs/org-columns';
import type { AppDeps } from '../../context';
import type { Organization } from '../../../db/types';
import { AppError } from '../../errors';
import type { AdminSessionId } from '../../ids';
import { hashSecret, SECRET_SHAPE } from './admin-session-secret';

export async function authenticateAdminSession(
  deps: Pick<AppDeps, 'db'>,
  secret: string,
): Promise<{ org: Organization; sessionId: AdminSessionId; expiresAt: Date }> {
  const invalid = new AppError('unauthorized', 'Your dashboard session has ended: sign in again');
  if (!SECRET_SHAPE.test(secret)) throw invalid;
  const row = await deps.db
    .selectFrom('admin_sessions')
    .innerJoin('organizations', 'organizations.id', 'admin_sessions.org_id')
    .select([
      'admin_sessions.id as session_id',
      'admin_sessions.expires_at',
      ...ORG_COLUMNS,
    ])
    .where('admin_sessions.secret_hash', '=', hashSecret(secret))
    .where('admin_sessions.revoked_at', 'is', null)
    .where('admin_sessions.expires_at', '>', new Date())
    .executeTakeFirst();
  if (!row) throw invalid;
  const { session_id, expires_at, ...org } = row;
  return { org, sessionId: session_id, expiresAt: expires_at };
}

/** Sign out: the session stops working at once, wherever its cookie was copied to. */
export async function revokeAdminSession(deps: Pick<AppDeps, 'db'>, secret: string): Promise<void> {
  if (!SECRET_SHAPE.test(secret)) return;
  await deps.db.updateTable('admin_sessions').set({ revoked_at: new Date() }).where('secret_hash', '=', hashSecret(secret)).where('revoked_at', 'is', null).execute();
}
