import type { AppDeps } from '../../context';
import type { OrgId } from '../../ids';

export async function listApiKeys(deps: Pick<AppDeps, 'db'>, orgId: OrgId) {
  const rows = await deps.db
    .selectFrom('api_keys')
    .select(['id', 'prefix', 'name', 'created_at', 'last_used_at', 'revoked_at'])
    .where('org_id', '=', orgId)
    .orderBy('created_at')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    prefix: r.prefix,
    name: r.name,
    created_at: r.created_at.toISOString(),
    last_used_at: r.last_used_at?.toISOString() ?? null,
    revoked_at: r.revoked_at?.toISOString() ?? null,
  }));
}
