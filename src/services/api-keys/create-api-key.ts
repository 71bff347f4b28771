/** Issues a new API key for an organisation. The secret is returned once and never stored. */
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import type { KeyScope } from '../../../db/types';
import { newId, type ApiKeyId } from '../../ids';
import { authorize, ZKeyScope } from '../access/roles';
import { recordAudit } from '../audit/record-audit';
import { generateApiKey } from './api-key-secret';

export const ZCreateApiKeyInput = z
  .object({
    name: z.string().trim().min(1).max(100).optional(),
    /** `query` keys can only search and chat (and mint widget tokens); `full` keys can do everything. */
    scope: ZKeyScope.optional(),
  })
  .strict();
export type CreateApiKeyInput = z.infer<typeof ZCreateApiKeyInput>;

export type CreatedApiKey = { id: ApiKeyId; prefix: string; name: string | null; scope: KeyScope; api_key: string; created_at: string };

export async function createApiKey(ctx: Pick<ServiceContext, 'db' | 'org' | 'actor'>, input: CreateApiKeyInput = {}): Promise<CreatedApiKey> {
  authorize(ctx, 'key.write');
  const { key, prefix, hash } = generateApiKey();
  const scope = input.scope ?? 'full';
  const row = await ctx.db
    .insertInto('api_keys')
    .values({ id: newId('key'), org_id: ctx.org.id, name: input.name ?? null, prefix, hash, scope })
    .returning(['id', 'prefix', 'name', 'scope', 'created_at'])
    .executeTakeFirstOrThrow();
  await recordAudit(ctx, { action: 'key.create', targetType: 'api_key', targetId: row.id, changes: { name: row.name, prefix: row.prefix, scope } });
  return { id: row.id, prefix: row.prefix, name: row.name, scope: row.scope, api_key: key, created_at: row.created_at.toISOString() };
}
