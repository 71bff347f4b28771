/**
 * Invitations: an admin names an email and a role; the link (with a one-time token, stored hashed)
 * is shown once, printed by the CLI and, with SMTP_URL set, emailed. Accepting it sets the person's
 * password and opens their first session. A pending invitation for the same email is replaced.
 */
import { z } from 'zod';
import type { AppDeps, ServiceContext } from '../../context';
import { AppError } from '../../errors';
import { newId, type UserId } from '../../ids';
import { parseInput } from '../../validation';
import type { Role } from '../../../db/types';
import { authorize, ZRole } from '../access/roles';
import { recordAudit } from '../audit/record-audit';
import { hashSecret, newSecret, SECRET_SHAPE } from '../admin-sessions/admin-session-secret';
import { hashPassword } from './password-hash';
import { ZEmail } from './member-dto';

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
export const invitationPath = (token: string) => `/admin/invite?token=${token}`;

export const ZInviteInput = z.object({ email: ZEmail, role: ZRole.default('editor') }).strict();

export type InvitationDto = { id: string; email: string; role: Role; created_at: string; expires_at: string };

export async function inviteMember(ctx: ServiceContext, raw: z.input<typeof ZInviteInput>): Promise<{ invitation: InvitationDto; token: string; path: string }> {
  authorize(ctx, 'member.write');
  const input = parseInput(ZInviteInput, raw);
  if (input.role === 'owner') authorize(ctx, 'owner.write');
  const token = newSecret();
  const row = await ctx.db.transaction().execute(async (trx) => {
    const taken = await trx.selectFrom('users').select('id').where('email', '=', input.email).executeTakeFirst();
    if (taken) throw new AppError('conflict', `${input.email} already has an account`, { field: 'email' });
    await trx.updateTable('invitations').set({ revoked_at: new Date() }).where('org_id', '=', ctx.org.id).where('email', '=', input.email).where('accepted_at', 'is', null).where('revoked_at', 'is', null).execute();
    const inserted = await trx
      .insertInto('invitations')
      .values({
        id: newId('invitation'),
        org_id: ctx.org.id,
        email: input.email,
        role: input.role,
        token_hash: hashSecret(token),
        invited_by: ctx.actor.type === 'user' ? (ctx.actor.id as UserId) : null,
        created_at: new Date(),
        expires_at: new Date(Date.now() + INVITATION_TTL_MS),
        accepted_at: null,
        revoked_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit({ ...ctx, db: trx }, { action: 'member.invite', targetType: 'invitation', targetId: inserted.id, changes: { email: input.email, role: input.role } });
    return inserted;
  });
  return { invitation: toInvitationDto(row), token, path: invitationPath(token) };
}

const toInvitationDto = (r: { id: string; email: string; role: Role; created_at: Date; expires_at: Date }): InvitationDto => ({
  id: r.id,
  email: r.email,
  role: r.role,
  created_at: r.created_at.toISOString(),
  expires_at: r.expires_at.toISOString(),
});

export async function listInvitations(ctx: ServiceContext): Promise<{ invitations: InvitationDto[] }> {
  authorize(ctx, 'member.read');
  const rows = await ctx.db
    .selectFrom('invitations')
    .selectAll()
    .where('org_id', '=', ctx.org.id)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', new Date())
    .orderBy('created_at', 'desc')
    .execute();
  return { invitations: rows.map(toInvitationDto) };
}

export async function revokeInvitation(ctx: ServiceContext, id: string): Promise<{ success: boolean }> {
  authorize(ctx, 'member.write');
  const row = await ctx.db
    .updateTable('invitations')
    .set({ revoked_at: new Date() })
    .where('org_id', '=', ctx.org.id)
    .where('id', '=', id as never)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .returning(['id', 'email'])
    .executeTakeFirst();
  if (!row) throw new AppError('not_found', 'Pending invitation not found');
  await recordAudit(ctx, { action: 'invitation.revoke', targetType: 'invitation', targetId: row.id, changes: { email: row.email } });
  return { success: true };
}

export const ZAcceptInput = z.object({ token: z.string(), password: z.string(), name: z.string().trim().max(200).optional() }).strict();

/** Redeems an invitation: creates the person with the invited role. Invalid, used, revoked and expired tokens are the same 401. */
export async function acceptInvitation(deps: Pick<AppDeps, 'db'>, raw: z.input<typeof ZAcceptInput>, ip: string | null) {
  const input = parseInput(ZAcceptInput, raw);
  const invalid = new AppError('unauthorized', 'This invitation is invalid, expired or already used; ask for a new one');
  if (!SECRET_SHAPE.test(input.token)) throw invalid;
  const passwordHash = await hashPassword(input.password);
  return deps.db.transaction().execute(async (trx) => {
    const inv = await trx
      .updateTable('invitations')
      .set({ accepted_at: new Date() })
      .where('token_hash', '=', hashSecret(input.token))
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', new Date())
      .returningAll()
      .executeTakeFirst();
    if (!inv) throw invalid;
    const taken = await trx.selectFrom('users').select('id').where('email', '=', inv.email).executeTakeFirst();
    if (taken) throw new AppError('conflict', `${inv.email} already has an account: sign in instead`);
    const user = await trx
      .insertInto('users')
      .values({ id: newId('user'), org_id: inv.org_id, email: inv.email, name: input.name || null, role: inv.role, password_hash: passwordHash, created_at: new Date(), password_changed_at: new Date(), disabled_at: null })
      .returningAll()
      .executeTakeFirstOrThrow();
    const org = await trx.selectFrom('organizations').selectAll().where('id', '=', inv.org_id).executeTakeFirstOrThrow();
    await recordAudit(
      { db: trx, org, actor: { type: 'user', id: user.id, label: user.email, role: user.role, scope: 'full', ip } },
      { action: 'member.join', targetType: 'user', targetId: user.id, changes: { email: user.email, role: user.role, invitation_id: inv.id } },
    );
    return user;
  });
}
