import type { AppDeps } from '../../context';
import { notFound } from '../../errors';

export async function findOrgBySlug(deps: Pick<AppDeps, 'db'>, slug: string) {
  const org = await deps.db.selectFrom('organizations').selectAll().where('slug', '=', slug).executeTakeFirst();
  if (!org) throw notFound(`Organisation "${slug}"`);
  return org;
}
