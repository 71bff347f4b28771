/**
 * The organisation's people: list, change a role, remove, and reset a password. An organisation
 * always keeps one active owner; only an owner makes or changes an owner.
 */
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { AppError } from '../../errors';
import type { UserId } from '../../ids';
import { parseInput } from '../../validation';
import type { Db } from '../../../db/connect';
import type { UserRow } from '../../../db/types';
import { authorize, ZRole } from '../access/roles';
import { recordAudit } from '../audit/record-audit';
import { createSignInLink, signInLinkPath } from '../admin-sessions/create-sign-in-link';
import { toMemberDto, type MemberDto } from './member-dto';
import { hashPassword, verifyPassword } from './password-hash';

export async function listMembers(ctx: ServiceContext): Promise<{ members: MemberDto[] }> {
  authorize(ctx, 'member.read');
  const rows = await ctx.db.selectFrom('users').selectAll().where('org_id', '=', ctx.org.id).where('disabled_at', 'is', null).orderBy('created_at').orderBy('id').execute();
  return { members: rows.map(toMemberDto) };
}

async function requireMember(db: Db, ctx: ServiceContext, id: string): Promise<UserRow> {
  const row = await db.selectFrom('users').selectAll().where('org_id', '=', ctx.org.id).where('id', '=', id as UserId).where('disabled_at', 'is', null).forUpdate().executeTakeFirst();
  if (!row) throw new AppError('not_found', 'Member not found');
  return row;
}

async function assertAnotherOwner(db: Db, ctx: ServiceContext, leaving: UserRow) {
  if (leaving.role !== 'owner') return;
  const owners = await db.selectFrom('users').select('id').where('org_id', '=', ctx.org.id).where('role', '=', 'owner').where('disabled_at', 'is', null).forUpdate().execute();
  if (owners.length <= 1) throw new AppError('conflict', 'The organisation needs an owner: make someone else owner first');
}

export const ZChangeRoleInput = z.object({ id: z.string().min(1), role: ZRole }).strict();

export async function changeMemberRole(ctx: ServiceContext, raw: z.input<typeof ZChangeRoleInput>): Promise<{ member: MemberDto }> {
  authorize(ctx, 'member.write');
  const input = parseInput(ZChangeRoleInput, raw);
  return ctx.db.transaction().execute(async (trx) => {
    const member = await requireMember(trx, ctx, input.id);
    if (member.role === 'owner' || input.role === 'owner') authorize(ctx, 'owner.write');
    if (member.role === input.role) return { member: toMemberDto(member) };
    if (input.role !== 'owner') await assertAnotherOwner(trx, ctx, member);
    const updated = await trx.updateTable('users').set({ role: input.role }).where('id', '=', member.id).returningAll().executeTakeFirstOrThrow();
    await recordAudit({ ...ctx, db: trx }, { action: 'member.role_change', targetType: 'user', targetId: member.id, changes: { email: member.email, before: member.role, after: input.role } });
    return { member: toMemberDto(updated) };
  });
}

/** Removes a person: their account is disabled (kept for the audit log's references) and every session of theirs ends at once. */
export async function removeMember(ctx: ServiceContext, id: string): Promise<{ success: boolean }> {
  authorize(ctx, 'member.write');
  return ctx.db.transaction().execute(async (trx) => {
    const member = await requireMember(trx, ctx, id);
    if (member.role === 'owner') authorize(ctx, 'owner.write');
    await assertAnotherOwner(trx, ctx, member);
    // The email is freed (suffixed) so the person can be invited again later.
    await trx.updateTable('users').set({ disabled_at: new Date(), email: `${member.email}#removed-${Date.now()}` }).where('id', '=', member.id).execute();
    await trx.updateTable('admin_sessions').set({ revoked_at: new Date() }).where('user_id', '=', member.id).where('revoked_at', 'is', null).execute();
    await recordAudit({ ...ctx, db: trx }, { action: 'member.remove', targetType: 'user', targetId: member.id, changes: { email: member.email, role: member.role } });
    return { success: true };
  });
}

/**
 * A password reset by an admin (or the CLI): a one-time sign-in link for the person, shown once; it
 * signs them in, and the dashboard asks for a new password. Their other sessions end.
 */
export async function resetMemberPassword(ctx: ServiceContext, id: string): Promise<{ path: string; expires_at: string }> {
  authorize(ctx, 'member.write');
  const member = await requireMember(ctx.db, ctx, id);
  if (member.role === 'owner') authorize(ctx, 'owner.write');
  await ctx.db.updateTable('admin_sessions').set({ revoked_at: new Date() }).where('user_id', '=', member.id).where('revoked_at', 'is', null).execute();
  const link = await createSignInLink(ctx, ctx.org.id, member.id);
  await recordAudit(ctx, { action: 'member.password_reset', targetType: 'user', targetId: member.id, changes: { email: member.email } });
  return { path: signInLinkPath(link.token), expires_at: link.expires_at };
}

export const ZSetPasswordInput = z.object({ current: z.string().optional(), password: z.string() }).strict();

/** A person sets their own password; the current one is needed when there is one, unless this session came from a one-time (reset) link. */
export async function setOwnPassword(ctx: ServiceContext, raw: z.input<typeof ZSetPasswordInput>): Promise<{ success: boolean }> {
  const input = parseInput(ZSetPasswordInput, raw);
  if (ctx.actor.type !== 'user' || !ctx.actor.id) throw new AppError('forbidden', 'Only a person signed in as themselves has a password to set');
  const me = await requireMember(ctx.db, ctx, ctx.actor.id);
  const session = ctx.actor.sessionId ? await ctx.db.selectFrom('admin_sessions').select('created_via').where('id', '=', ctx.actor.sessionId).executeTakeFirst() : null;
  const viaLink = session?.created_via === 'link';
  if (me.password_hash && !viaLink && !(await verifyPassword(input.current ?? '', me.password_hash))) {
    throw new AppError('invalid_input', 'The current password is not right', { field: 'current' });
  }
  await ctx.db.updateTable('users').set({ password_hash: await hashPassword(input.password), password_changed_at: new Date() }).where('id', '=', me.id).execute();
  await recordAudit(ctx, { action: 'member.password_set', targetType: 'user', targetId: me.id, changes: {} });
  return { success: true };
}
