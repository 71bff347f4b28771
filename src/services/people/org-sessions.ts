/** The organisation's open dashboard sessions: who, how they signed in, from where; and revoking one. */
import type { ServiceContext } from '../../context';
import { AppError } from '../../errors';
import { authorize } from '../access/roles';
import { recordAudit } from '../audit/record-audit';

export type SessionDto = {
  id: string;
  user_id: string | null;
  email: string | null;
  via: string;
  created_at: string;
  last_seen_at: string | null;
  expires_at: string;
  ip: string | null;
  user_agent: string | null;
  current: boolean;
};

export async function listSessions(ctx: ServiceContext): Promise<{ sessions: SessionDto[] }> {
  authorize(ctx, 'member.read');
  const rows = await ctx.db
    .selectFrom('admin_sessions as s')
    .leftJoin('users as u', 'u.id', 's.user_id')
    .select(['s.id', 's.user_id', 'u.email', 's.created_via', 's.created_at', 's.last_seen_at', 's.expires_at', 's.ip', 's.user_agent'])
    .where('s.org_id', '=', ctx.org.id)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', new Date())
    .orderBy('s.created_at', 'desc')
    .limit(200)
    .execute();
  return {
    sessions: rows.map((r) => ({
      id: r.id,
      user_id: r.user_id,
      email: r.email,
      via: r.created_via,
      created_at: r.created_at.toISOString(),
      last_seen_at: r.last_seen_at?.toISOString() ?? null,
      expires_at: r.expires_at.toISOString(),
      ip: r.ip,
      user_agent: r.user_agent,
      current: r.id === ctx.actor.sessionId,
    })),
  };
}

export async function revokeSession(ctx: ServiceContext, id: string): Promise<{ success: boolean }> {
  authorize(ctx, 'member.write');
  const row = await ctx.db
    .updateTable('admin_sessions')
    .set({ revoked_at: new Date() })
    .where('org_id', '=', ctx.org.id)
    .where('id', '=', id as never)
    .where('revoked_at', 'is', null)
    .returning(['id', 'user_id', 'created_via'])
    .executeTakeFirst();
  if (!row) throw new AppError('not_found', 'Open session not found');
  await recordAudit(ctx, { action: 'session.revoke', targetType: 'session', targetId: row.id, changes: { user_id: row.user_id, via: row.created_via } });
  return { success: true };
}
