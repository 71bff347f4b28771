/**
 * Writes one audit entry: who (the context's actor), when, from where, and what changed. Services
 * call it with the same `ctx.db` as the change itself, so inside a transaction the entry commits
 * or rolls back with it. The table is append-only (a trigger refuses UPDATE and DELETE).
 */
import type { ServiceContext } from '../../context';

export type AuditEntry = {
  /** `<target>.<verb>`, e.g. `kb.delete`, `key.create`, `member.role_change`. */
  action: string;
  targetType: string;
  targetId?: string | null;
  /** What changed: the fields set (never a secret), or `{ before, after }` for an edit. */
  changes?: Record<string, unknown>;
};

export async function recordAudit(ctx: Pick<ServiceContext, 'db' | 'org' | 'actor'>, entry: AuditEntry): Promise<void> {
  await ctx.db
    .insertInto('audit_log')
    .values({
      org_id: ctx.org.id,
      actor_type: ctx.actor.type,
      actor_id: ctx.actor.id,
      actor_label: ctx.actor.label,
      ip: ctx.actor.ip ?? null,
      action: entry.action,
      target_type: entry.targetType,
      target_id: entry.targetId ?? null,
      changes: JSON.stringify(entry.changes ?? {}),
    })
    .execute();
}
