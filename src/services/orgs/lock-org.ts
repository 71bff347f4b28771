import type { Transaction } from 'kysely';
import type { Database } from '../../../db/types';
import type { OrgId } from '../../ids';

/**
 * Serialises plan-limit checks of one organisation: two concurrent creates both wait here, so the
 * second one counts the first one's row. (Advisory locks would not exclude on the embedded database.)
 */
export async function lockOrg(trx: Transaction<Database>, orgId: OrgId) {
  return trx.selectFrom('organizations').selectAll().where('id', '=', orgId).forUpdate().executeTakeFirstOrThrow();
}
