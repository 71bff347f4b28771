/** A one-time dashboard sign-in token for an organisation (the CLI turns it into a link). */
import { sql } from 'kysely';
import type { AppDeps } from '../../context';
import type { OrgId } from '../../ids';
import { hashSecret, newSecret, SIGN_IN_LINK_TTL_MS } from './admin-session-secret';

export async function createSignInLink(deps: Pick<AppDeps, 'db'>, orgId: OrgId): Promise<{ token: string; expires_at: string }> {
  const token = newSecret();
  const expires = new Date(Date.now() + SIGN_IN_LINK_TTL_MS);
  await sql`delete from admin_sign_in_links where expires_at < now()`.execute(deps.db);
  await deps.db.insertInto('admin_sign_in_links').values({ token_hash: hashSecret(token), org_id: orgId, created_at: new Date(), expires_at: expires, used_at: null }).execute();
  return { token, expires_at: expires.toISOString() };
}
