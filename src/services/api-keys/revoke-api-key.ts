/** Revokes a key of an organisation, by id or by its visible prefix. Revocation is immediate. */
import type { AppDeps } from '../../context';
import { notFound } from '../../errors';
import type { OrgId } from '../../ids';

export async function revokeApiKey(deps: Pick<AppDeps, 'db'>, orgId: OrgId, idOrPrefix: string) {
  const row = await deps.db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('org_id', '=', orgId)
    .where((eb) => eb.or([eb('id', '=', idOrPrefix as never), eb('prefix', '=', idOrPrefix)]))
    .where('revoked_at', 'is', null)
    .returning(['id', 'prefix', 'revoked_at'])
    .executeTakeFirst();
  if (!row) throw notFound('Active API key');
  return { id: row.id, prefix: row.prefix, revoked_at: row.revoked_at!.toISOString() };
}
