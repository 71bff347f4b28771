/** Issues a new API key for an organisation. The secret is returned once and never stored. */
import { z } from 'zod';
import type { AppDeps } from '../../context';
import { newId, type ApiKeyId, type OrgId } from '../../ids';
import { generateApiKey } from './api-key-secret';

export const ZCreateApiKeyInput = z.object({ name: z.string().trim().min(1).max(100).optional() }).strict();
export type CreateApiKeyInput = z.infer<typeof ZCreateApiKeyInput>;

export type CreatedApiKey = { id: ApiKeyId; prefix: string; name: string | null; api_key: string; created_at: string };

export async function createApiKey(deps: Pick<AppDeps, 'db'>, orgId: OrgId, input: CreateApiKeyInput = {}): Promise<CreatedApiKey> {
  const { key, prefix, hash } = generateApiKey();
  const row = await deps.db
    .insertInto('api_keys')
    .values({ id: newId('key'), org_id: orgId, name: input.name ?? null, prefix, hash })
    .returning(['id', 'prefix', 'name', 'created_at'])
    .executeTakeFirstOrThrow();
  return { id: row.id, prefix: row.prefix, name: row.name, api_key: key, created_at: row.created_at.toISOString() };
}
