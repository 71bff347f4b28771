/**
 * A one-time dashboard sign-in token (the CLI turns it into a link; a password reset is one too).
 * It signs in as `userId`, else as the organisation's first owner when it has people, else (an
 * organisation without accounts) as a key session with the owner's role.
 */
import { sql } from 'kysely';
import type { AppDeps } from '../../context';
import type { OrgId, UserId } from '../../ids';
import { hashSecret, newSecret, SIGN_IN_LINK_TTL_MS } from './admin-session-secret';

export const signInLinkPath = (token: string) => `/admin/sign-in?token=${token}`;

export async function createSignInLink(deps: Pick<AppDeps, 'db'>, orgId: OrgId, userId?: UserId): Promise<{ token: string; expires_at: string; user_id: UserId | null }> {
  const token = newSecret();
  const expires = new Date(Date.now() + SIGN_IN_LINK_TTL_MS);
  const owner = userId
    ? null
    : await deps.db.selectFrom('users').select('id').where('org_id', '=', orgId).where('role', '=', 'owner').where('disabled_at', 'is', null).orderBy('created_at').limit(1).executeTakeFirst();
  const user = userId ?? owner?.id ?? null;
  await sql`delete from admin_sign_in_links where expires_at < now()`.execute(deps.db);
  await deps.db.insertInto('admin_sign_in_links').values({ token_hash: hashSecret(token), org_id: orgId, user_id: user, created_at: new Date(), expires_at: expires, used_at: null }).execute();
  return { token, expires_at: expires.toISOString(), user_id: user };
}
