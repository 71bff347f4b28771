/** The audit log on GraphQL: read-only, newest first, paged backwards with `before`. */
import { listAuditLog, type AuditLogEntryDto } from '../src/services/audit/list-audit-log';
import { builder } from './builder';

const AuditActorRef = builder.objectRef<AuditLogEntryDto['actor']>('AuditActor').implement({
  fields: (t) => ({
    type: t.exposeString('type', { description: '`user`, `api_key`, `key_session` (dashboard signed in with a key), `system` or `visitor`' }),
    id: t.exposeID('id', { nullable: true }),
    label: t.exposeString('label', { description: "The person's email or the key's prefix" }),
  }),
});

const AuditEntryRef = builder.objectRef<AuditLogEntryDto>('AuditLogEntry').implement({
  description: 'One recorded admin action; entries are never edited or deleted',
  fields: (t) => ({
    id: t.exposeID('id'),
    at: t.field({ type: 'DateTime', resolve: (e) => e.at }),
    actor: t.field({ type: AuditActorRef, resolve: (e) => e.actor }),
    ip: t.exposeString('ip', { nullable: true }),
    action: t.exposeString('action', { description: '`<target>.<verb>`, e.g. `kb.delete`' }),
    targetType: t.string({ resolve: (e) => e.target.type }),
    targetId: t.string({ nullable: true, resolve: (e) => e.target.id }),
    changes: t.string({ description: 'What changed, as a JSON object', resolve: (e) => JSON.stringify(e.changes) }),
  }),
});

const AuditPageRef = builder.objectRef<Awaited<ReturnType<typeof listAuditLog>>>('AuditLogPage').implement({
  fields: (t) => ({
    entries: t.field({ type: [AuditEntryRef], resolve: (p) => p.entries }),
    nextBefore: t.exposeString('next_before', { nullable: true, description: 'Pass as `before` for the next (older) page' }),
  }),
});

builder.queryFields((t) => ({
  auditLog: t.field({
    type: AuditPageRef,
    description: 'Admins and owners: who did what, when and from where',
    args: {
      action: t.arg.string({ description: 'An action (`kb.delete`) or a family ending in a dot (`kb.`)' }),
      actor: t.arg.string({ description: "Part of the actor's email or key prefix" }),
      targetType: t.arg.string(),
      targetId: t.arg.string(),
      from: t.arg.string(),
      to: t.arg.string(),
      before: t.arg.string(),
      first: t.arg.int({ defaultValue: 50 }),
    },
    resolve: async (_r, a, ctx) =>
      listAuditLog(await ctx.auth(), {
        limit: a.first ?? 50,
        ...(a.action != null ? { action: a.action } : {}),
        ...(a.actor != null ? { actor: a.actor } : {}),
        ...(a.targetType != null ? { target_type: a.targetType } : {}),
        ...(a.targetId != null ? { target_id: a.targetId } : {}),
        ...(a.from != null ? { from: a.from } : {}),
        ...(a.to != null ? { to: a.to } : {}),
        ...(a.before != null ? { before: a.before } : {}),
      }),
  }),
}));
