/**
 * First start on an empty database: create a default organisation so a new user can make their
 * first request straight away. A self-hosted install is its owner's own, so it gets the pro plan.
 */
import type { AppDeps } from '../../context';
import { createOrg } from './create-org';
import type { OrgDto } from './org-dto';

export async function ensureDefaultOrg(deps: Pick<AppDeps, 'db'>): Promise<{ org: OrgDto; api_key: string } | null> {
  const any = await deps.db.selectFrom('organizations').select('id').limit(1).executeTakeFirst();
  if (any) return null;
  return createOrg(deps, { name: 'Default', slug: 'default', plan: 'pro' });
}
