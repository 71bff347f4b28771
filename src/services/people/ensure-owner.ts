/**
 * An organisation without people gets its owner account (no password yet): the first start prints
 * a one-time link that signs in as them, and they set a password in the dashboard.
 */
import type { AppDeps } from '../../context';
import { newId, type OrgId } from '../../ids';
import type { UserRow } from '../../../db/types';

export async function ensureOwner(deps: Pick<AppDeps, 'db' | 'config'>, orgId: OrgId): Promise<UserRow | null> {
  const any = await deps.db.selectFrom('users').select('id').where('org_id', '=', orgId).limit(1).executeTakeFirst();
  if (any) return null;
  const email = deps.config.people.ownerEmail;
  const taken = await deps.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
  if (taken) return null;
  return deps.db
    .insertInto('users')
    .values({ id: newId('user'), org_id: orgId, email, name: null, role: 'owner', password_hash: null, created_at: new Date(), password_changed_at: null, disabled_at: null })
    .returningAll()
    .executeTakeFirstOrThrow();
}
