/** Who is calling and what they may do: what the dashboard shows and hides by (the server enforces either way). */
import type { ServiceContext } from '../../context';
import type { UserId } from '../../ids';
import { can, PERMISSIONS, type Permission } from '../access/roles';

export type CallerDto = { kind: string; email: string | null; role: string; permissions: Permission[]; has_password: boolean | null };

export async function describeCaller(ctx: ServiceContext): Promise<CallerDto> {
  const permissions = (Object.keys(PERMISSIONS) as Permission[]).filter((p) => can(ctx, p));
  const person = ctx.actor.type === 'user' && ctx.actor.id;
  const row = person ? await ctx.db.selectFrom('users').select('password_hash').where('id', '=', ctx.actor.id as UserId).executeTakeFirst() : null;
  return { kind: ctx.actor.type, email: person ? ctx.actor.label : null, role: ctx.actor.role, permissions, has_password: person ? Boolean(row?.password_hash) : null };
}
