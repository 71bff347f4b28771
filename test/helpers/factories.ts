/** Factories that make unique rows, so tests never collide with each other's data. */
import { randomBytes } from 'node:crypto';
import type { AppDeps } from '../../src/context';
import type { PlanName } from '../../db/types';
import { createOrg } from '../../src/services/orgs/create-org';

export async function createOrgWithKey(deps: Pick<AppDeps, 'db'>, opts: { plan?: PlanName; name?: string } = {}) {
  const suffix = randomBytes(4).toString('hex');
  return createOrg(deps, { name: opts.name ?? `Org ${suffix}`, slug: `org-${suffix}`, plan: opts.plan ?? 'pro' });
}
