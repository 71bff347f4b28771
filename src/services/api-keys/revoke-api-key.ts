/** Revokes a key of an organisation, by id or by its visible prefix. Revocation is immediate. */
import type { ServiceContext } from '../../context';
import { notFound } from '../../errors';
import { authorize } from '../access/roles';
import { recordAudit } from '../audit/record-audit';

export async function revokeApiKey(ctx: Pick<ServiceContext, 'db' | 'org' | 'actor'>, idOrPrefix: string) {
  authorize(ctx, 'key.write');
  return ctx.db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('api_keys')
      .set({ revoked_at: new Date() })
      .where('org_id', '=', ctx.org.id)
      .where((eb) => eb.or([eb('id', '=', idOrPrefix as never), eb('prefix', '=', idOrPrefix)]))
      .where('revoked_at', 'is', null)
      .returning(['id', 'prefix', 'revoked_at'])
      .executeTakeFirst();
    if (!row) throw notFound('Active API key');
    await recordAudit({ ...ctx, db: trx }, { action: 'key.revoke', targetType: 'api_key', targetId: row.id, changes: { prefix: row.prefix, revoked_at: row.revoked_at!.toISOString() } });
    return { id: row.id, prefix: row.prefix, revoked_at: row.revoked_at!.toISOString() };
  });
}
