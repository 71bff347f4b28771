import { z } from 'zod';
import type { UserRow } from '../../../db/types';

export type MemberDto = { id: string; email: string; name: string | null; role: UserRow['role']; created_at: string; has_password: boolean; disabled_at: string | null };

export const toMemberDto = (u: UserRow): MemberDto => ({
  id: u.id,
  email: u.email,
  name: u.name,
  role: u.role,
  created_at: u.created_at.toISOString(),
  has_password: u.password_hash !== null,
  disabled_at: u.disabled_at?.toISOString() ?? null,
});

/** Emails are compared lower-cased: one person, one account, however they type it. */
export const ZEmail = z.string().trim().toLowerCase().pipe(z.email('must be an email address').max(254));
