/** The organisation row as callers authenticate into it: one list, so the API-key and dashboard-session doors load the same fields. */
export const ORG_COLUMNS = [
  'organizations.id',
  'organizations.slug',
  'organizations.name',
  'organizations.plan',
  'organizations.settings',
  'organizations.created_at',
] as const;
