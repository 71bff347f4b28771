/**
 * Resolves an `x-api-key` to its organisation. Unknown, malformed and revoked keys are
 * indistinguishable to the caller (one 401), and the hash comparison is constant-time.
 */
import { ORG_COLUMNS } from '../orgs/org-columns';
import type { AppDeps } from '../../context';
import type { KeyScope, Organization } from '../../../db/types';
import { AppError } from '../../errors';
import type { ApiKeyId } from '../../ids';
import { apiKeyMatches, apiKeyPrefix } from './api-key-secret';

/** last_used_at is a hint for humans; writing it on every request would double the write load. */
const LAST_USED_RESOLUTION_MS = 60_000;

export async function authenticateApiKey(
  deps: Pick<AppDeps, 'db' | 'logger'>,
  presented: string | null | undefined,
): Promise<{ org: Organization; apiKeyId: ApiKeyId; prefix: string; scope: KeyScope }> {
  if (!presented) throw new AppError('unauthorized', 'Missing API key: send it in the x-api-key header');
  const invalid = new AppError('unauthorized', 'Invalid or revoked API key');
  const prefix = apiKeyPrefix(presented.trim());
  if (!prefix) throw invalid;

  const row = await deps.db
    .selectFrom('api_keys')
    .innerJoin('organizations', 'organizations.id', 'api_keys.org_id')
    .select([
      'api_keys.id as key_id',
      'api_keys.hash',
      'api_keys.scope as key_scope',
      'api_keys.revoked_at',
      'api_keys.last_used_at',
      ...ORG_COLUMNS,
    ])
    .where('api_keys.prefix', '=', prefix)
    .executeTakeFirst();
  if (!row || row.revoked_at || !apiKeyMatches(presented.trim(), row.hash)) throw invalid;

  if (!row.last_used_at || Date.now() - row.last_used_at.getTime() > LAST_USED_RESOLUTION_MS) {
    deps.db
      .updateTable('api_keys')
      .set({ last_used_at: new Date() })
      .where('id', '=', row.key_id)
      .execute()
      .catch((err) => deps.logger.warn({ err }, 'could not record api key use'));
  }
  const { key_id, key_scope, hash: _h, revoked_at: _r, last_used_at: _l, ...org } = row;
  return { org, apiKeyId: key_id, prefix, scope: key_scope };
}
