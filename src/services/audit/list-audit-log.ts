/**
 * The organisation's audit log, newest first, filtered by action, actor, target and time. Pages go
 * backwards by entry id (`before`), which is stable while new entries arrive.
 */
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { parseInput } from '../../validation';
import { authorize } from '../access/roles';
import { endOf, startOf } from '../chat/list-conversations';

const ZDate = z.iso.datetime({ offset: true }).or(z.iso.date());
export const ZListAuditLogInput = z
  .object({
    /** An exact action (`kb.delete`) or a family (`kb.`, every action on KBs). */
    action: z.string().trim().min(1).max(100).optional(),
    /** The actor's label (an email or a key prefix) contains this, case-insensitively. */
    actor: z.string().trim().min(1).max(200).optional(),
    target_type: z.string().trim().min(1).max(50).optional(),
    target_id: z.string().trim().min(1).max(100).optional(),
    from: ZDate.optional(),
    to: ZDate.optional(),
    before: z.string().regex(/^\d{1,19}$/, 'must be the id of an entry').optional(),
    limit: z.number().int().min(1).max(200).default(50),
  })
  .strict();

export type AuditLogEntryDto = {
  id: string;
  at: string;
  actor: { type: string; id: string | null; label: string };
  ip: string | null;
  action: string;
  target: { type: string; id: string | null };
  changes: Record<string, unknown>;
};

const likeEscaped = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export async function listAuditLog(ctx: ServiceContext, raw: z.input<typeof ZListAuditLogInput>): Promise<{ entries: AuditLogEntryDto[]; next_before: string | null }> {
  authorize(ctx, 'audit.read');
  const input = parseInput(ZListAuditLogInput, raw);
  let q = ctx.db.selectFrom('audit_log').selectAll().where('org_id', '=', ctx.org.id);
  if (input.action) q = input.action.endsWith('.') ? q.where('action', 'like', `${likeEscaped(input.action)}%`) : q.where('action', '=', input.action);
  if (input.actor) q = q.where('actor_label', 'ilike', `%${likeEscaped(input.actor)}%`);
  if (input.target_type) q = q.where('target_type', '=', input.target_type);
  if (input.target_id) q = q.where('target_id', '=', input.target_id);
  if (input.from) q = q.where('at', '>=', startOf(input.from));
  if (input.to) q = q.where('at', '<', endOf(input.to));
  if (input.before) q = q.where('id', '<', input.before);
  const rows = await q.orderBy('id', 'desc').limit(input.limit + 1).execute();
  const page = rows.slice(0, input.limit);
  return {
    entries: page.map((r) => ({
      id: String(r.id),
      at: r.at.toISOString(),
      actor: { type: r.actor_type, id: r.actor_id, label: r.actor_label },
      ip: r.ip,
      action: r.action,
      target: { type: r.target_type, id: r.target_id },
      changes: (typeof r.changes === 'string' ? JSON.parse(r.changes) : r.changes) as Record<string, unknown>,
    })),
    next_before: rows.length > input.limit ? String(page[page.length - 1]!.id) : null,
  };
}
