import type { Organization } from '../../../db/types';

export function toOrgDto(org: Pick<Organization, 'id' | 'slug' | 'name' | 'plan'>) {
  return { id: org.id, slug: org.slug, name: org.name, plan: org.plan };
}
export type OrgDto = ReturnType<typeof toOrgDto>;
