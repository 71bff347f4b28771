/**
 * Opens a dashboard session for an organisation, from an API key (the sign-in form) or from a
 * one-time link printed by the CLI. Returns the cookie secret once; only its hash is stored.
 */
import { sql } from 'kysely';
import type { AppDeps } from '../../context';
import { AppError } from '../../errors';
import { newId, type OrgId } from '../../ids';
import { authenticateApiKey } from '../api-keys/authenticate-api-key';
import { hashSecret, newSecret, SECRET_SHAPE, SESSION_TTL_MS } from './admin-session-secret';

export type StartedAdminSession = { secret: string; expires_at: Date; org_id: OrgId };

async function openSession(deps: Pick<AppDeps, 'db'>, orgId: OrgId, via: 'api_key' | 'link'): Promise<StartedAdminSession> {
  const secret = newSecret();
  const expires = new Date(Date.now() + SESSION_TTL_MS);
  await deps.db
    .insertInto('admin_sessions')
    .values({ id: newId('adminSession'), org_id: orgId, secret_hash: hashSecret(secret), created_via: via, created_at: new Date(), expires_at: expires, revoked_at: null })
    .execute();
  // Expired rows are useless; dropping them here keeps the table bounded without a cron.
  await sql`delete from admin_sessions where expires_at < now() - interval '1 day'`.execute(deps.db);
  return { secret, expires_at: expires, org_id: orgId };
}

export async function signInWithApiKey(deps: Pick<AppDeps, 'db' | 'logger'>, apiKey: string): Promise<StartedAdminSession> {
  const { org } = await authenticateApiKey(deps, apiKey);
  return openSession(deps, org.id, 'api_key');
}

/** Redeems a CLI link: valid once, before its expiry; any other case is the same 401. */
export async function signInWithLink(deps: Pick<AppDeps, 'db'>, token: string): Promise<StartedAdminSession> {
  const invalid = new AppError('unauthorized', 'This sign-in link is invalid, expired or already used');
  if (!SECRET_SHAPE.test(token)) throw invalid;
  const row = await deps.db
    .updateTable('admin_sign_in_links')
    .set({ used_at: new Date() })
    .where('token_hash', '=', hashSecret(token))
    .where('used_at', 'is', null)
    .where('expires_at', '>', new Date())
    .returning(['org_id'])
    .executeTakeFirst();
  if (!row) throw invalid;
  return openSession(deps, row.org_id, 'link');
}
