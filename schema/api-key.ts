import { createApiKey, ZCreateApiKeyInput } from '../src/services/api-keys/create-api-key';
import { parseInput } from '../src/validation';
import { listApiKeys } from '../src/services/api-keys/list-api-keys';
import { revokeApiKey } from '../src/services/api-keys/revoke-api-key';
import { builder } from './builder';

type ApiKeyDto = Awaited<ReturnType<typeof listApiKeys>>[number];

const ApiKeyRef = builder.objectRef<ApiKeyDto>('ApiKey').implement({
  description: "An API key of the caller's organisation (the secret itself is never shown again)",
  fields: (t) => ({
    id: t.exposeID('id'),
    prefix: t.exposeString('prefix', { description: 'The visible start of the key' }),
    name: t.exposeString('name', { nullable: true }),
    scope: t.exposeString('scope', { description: '`full` (everything) or `query` (search, chat and widget tokens only)' }),
    createdAt: t.field({ type: 'DateTime', resolve: (k) => k.created_at }),
    lastUsedAt: t.field({ type: 'DateTime', nullable: true, resolve: (k) => k.last_used_at }),
    revokedAt: t.field({ type: 'DateTime', nullable: true, resolve: (k) => k.revoked_at }),
  }),
});

const CreatedApiKeyRef = builder.objectRef<{ api_key: string; key: ApiKeyDto }>('CreatedApiKey').implement({
  fields: (t) => ({
    apiKey: t.exposeString('api_key', { description: 'The whole key: shown this once, store it now' }),
    key: t.field({ type: ApiKeyRef, resolve: (r) => r.key }),
  }),
});

builder.queryFields((t) => ({
  apiKeys: t.field({
    type: [ApiKeyRef],
    resolve: async (_r, _a, ctx) => {
      const svc = await ctx.auth();
      return listApiKeys(svc);
    },
  }),
}));

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: CreatedApiKeyRef,
    args: { name: t.arg.string(), scope: t.arg.string({ description: '`full` (default) or `query`' }) },
    resolve: async (_r, { name, scope }, ctx) => {
      const svc = await ctx.auth();
      const created = await createApiKey(svc, parseInput(ZCreateApiKeyInput, { ...(name ? { name } : {}), ...(scope ? { scope } : {}) }));
      return { api_key: created.api_key, key: { id: created.id, prefix: created.prefix, name: created.name, scope: created.scope, created_at: created.created_at, last_used_at: null, revoked_at: null } };
    },
  }),
  revokeApiKey: t.field({
    type: ApiKeyRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, { id }, ctx) => {
      const svc = await ctx.auth();
      const revoked = await revokeApiKey(svc, String(id));
      return (await listApiKeys(svc)).find((k) => k.id === revoked.id)!;
    },
  }),
}));
