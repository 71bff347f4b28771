import type { ServiceContext } from '../../context';
import { authorize } from '../access/roles';

export async function listApiKeys(ctx: Pick<ServiceContext, 'db' | 'org' | 'actor'>) {
  authorize(ctx, 'key.read');
  const rows = await ctx.db
    .selectFrom('api_keys')
    .select(['id', 'prefix', 'name', 'scope', 'created_at', 'last_used_at', 'revoked_at'])
    .where('org_id', '=', ctx.org.id)
    .orderBy('created_at')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    prefix: r.prefix,
    name: r.name,
    scope: r.scope,
    created_at: r.created_at.toISOString(),
    last_used_at: r.last_used_at?.toISOString() ?? null,
    revoked_at: r.revoked_at?.toISOString() ?? null,
  }));
}
