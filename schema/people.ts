/**
 * People on GraphQL: who is signed in and what they may do (`me`), members, invitations and
 * sessions, and password sign-in for the dashboard (same origin and CSRF header, like `signIn`).
 */
import { assertDashboardRequest, sessionCookie } from '../src/http/session-cookie';
import { AppError } from '../src/errors';
import { describeCaller, type CallerDto } from '../src/services/people/describe-caller';
import { signInWithPassword } from '../src/services/admin-sessions/start-admin-session';
import { inviteMember, listInvitations, revokeInvitation, type InvitationDto } from '../src/services/people/invitations';
import { changeMemberRole, listMembers, removeMember, resetMemberPassword, setOwnPassword } from '../src/services/people/members';
import type { MemberDto } from '../src/services/people/member-dto';
import { listSessions, revokeSession, type SessionDto } from '../src/services/people/org-sessions';
import { sendInvitationEmail } from '../src/services/people/invitation-email';
import { builder, type GraphQLContext } from './builder';

const proxy = (ctx: GraphQLContext) => ({ trustProxy: ctx.deps.config.trustProxy, url: ctx.request.url });
const client = (ctx: GraphQLContext) => ({ ip: ctx.clientIp, userAgent: ctx.request.headers.get('user-agent') });

const MeRef = builder.objectRef<CallerDto>('Me').implement({
  description: 'Who is calling and what they may do',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: '`user` (a person), `key_session` (the dashboard signed in with an API key) or `api_key`' }),
    email: t.exposeString('email', { nullable: true }),
    role: t.exposeString('role'),
    permissions: t.exposeStringList('permissions', { description: 'Every permission the caller holds (docs/access.md)' }),
    hasPassword: t.exposeBoolean('has_password', { nullable: true, description: 'false: a person who has not set a password yet (signed in by a one-time link)' }),
  }),
});

const MemberRef = builder.objectRef<MemberDto>('Member').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    email: t.exposeString('email'),
    name: t.exposeString('name', { nullable: true }),
    role: t.exposeString('role'),
    hasPassword: t.exposeBoolean('has_password'),
    createdAt: t.field({ type: 'DateTime', resolve: (m) => m.created_at }),
  }),
});

const InvitationRef = builder.objectRef<InvitationDto>('Invitation').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    email: t.exposeString('email'),
    role: t.exposeString('role'),
    createdAt: t.field({ type: 'DateTime', resolve: (i) => i.created_at }),
    expiresAt: t.field({ type: 'DateTime', resolve: (i) => i.expires_at }),
  }),
});

const SessionRef = builder.objectRef<SessionDto>('AdminSession').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    email: t.exposeString('email', { nullable: true, description: 'null: opened with an API key or a link of an organisation without people' }),
    via: t.exposeString('via', { description: '`password`, `invitation`, `link` or `api_key`' }),
    createdAt: t.field({ type: 'DateTime', resolve: (s) => s.created_at }),
    lastSeenAt: t.field({ type: 'DateTime', nullable: true, resolve: (s) => s.last_seen_at }),
    expiresAt: t.field({ type: 'DateTime', resolve: (s) => s.expires_at }),
    ip: t.exposeString('ip', { nullable: true }),
    userAgent: t.exposeString('user_agent', { nullable: true }),
    current: t.exposeBoolean('current', { description: 'The session of this request' }),
  }),
});

const InvitedRef = builder.objectRef<{ invitation: InvitationDto; path: string; emailed: boolean }>('InvitedMember').implement({
  fields: (t) => ({
    invitation: t.field({ type: InvitationRef, resolve: (r) => r.invitation }),
    link: t.string({ description: 'The invitation link, shown this once', resolve: (r, _a, ctx) => `${new URL(ctx.request.url).origin}${r.path}` }),
    emailed: t.exposeBoolean('emailed', { description: 'true when SMTP_URL is set and the email was accepted by the server' }),
  }),
});

const ResetRef = builder.objectRef<{ path: string; expires_at: string }>('PasswordReset').implement({
  fields: (t) => ({
    link: t.string({ description: 'A one-time sign-in link for the person, shown this once', resolve: (r, _a, ctx) => `${new URL(ctx.request.url).origin}${r.path}` }),
    expiresAt: t.field({ type: 'DateTime', resolve: (r) => r.expires_at }),
  }),
});

const SignedInRef = builder.objectRef<{ expires_at: Date }>('PasswordSignIn').implement({
  fields: (t) => ({ expiresAt: t.field({ type: 'DateTime', resolve: (r) => r.expires_at.toISOString() }) }),
});

builder.queryFields((t) => ({
  me: t.field({ type: MeRef, resolve: async (_r, _a, ctx) => describeCaller(await ctx.auth()) }),
  members: t.field({ type: [MemberRef], resolve: async (_r, _a, ctx) => (await listMembers(await ctx.auth())).members }),
  invitations: t.field({ type: [InvitationRef], description: 'Pending invitations', resolve: async (_r, _a, ctx) => (await listInvitations(await ctx.auth())).invitations }),
  sessions: t.field({ type: [SessionRef], description: 'Open dashboard sessions of the organisation', resolve: async (_r, _a, ctx) => (await listSessions(await ctx.auth())).sessions }),
}));

builder.mutationFields((t) => ({
  signInWithPassword: t.field({
    type: SignedInRef,
    description: 'Dashboard only: email and password for a session cookie; throttled per account and per address',
    args: { email: t.arg.string({ required: true }), password: t.arg.string({ required: true }) },
    resolve: async (_r, { email, password }, ctx) => {
      assertDashboardRequest(ctx.request.headers, proxy(ctx));
      await ctx.deps.signIns.check(email, ctx.clientIp);
      try {
        const started = await signInWithPassword(ctx.deps, email, password, client(ctx));
        ctx.setCookie(sessionCookie(ctx.request, started.secret, proxy(ctx)));
        return started;
      } catch (err) {
        if (err instanceof AppError && err.code === 'unauthorized') await ctx.deps.signIns.fail(email, ctx.clientIp);
        throw err;
      }
    },
  }),
  inviteMember: t.field({
    type: InvitedRef,
    args: { email: t.arg.string({ required: true }), role: t.arg.string({ required: true }) },
    resolve: async (_r, { email, role }, ctx) => {
      const svc = await ctx.auth();
      const invited = await inviteMember(svc, { email, role: role as never });
      const link = `${new URL(ctx.request.url).origin}${invited.path}`;
      const emailed = await sendInvitationEmail(svc, { to: invited.invitation.email, link, role: invited.invitation.role });
      return { ...invited, emailed };
    },
  }),
  revokeInvitation: t.boolean({ args: { id: t.arg.id({ required: true }) }, resolve: async (_r, { id }, ctx) => (await revokeInvitation(await ctx.auth(), String(id))).success }),
  changeMemberRole: t.field({
    type: MemberRef,
    args: { id: t.arg.id({ required: true }), role: t.arg.string({ required: true }) },
    resolve: async (_r, { id, role }, ctx) => (await changeMemberRole(await ctx.auth(), { id: String(id), role: role as never })).member,
  }),
  removeMember: t.boolean({ args: { id: t.arg.id({ required: true }) }, resolve: async (_r, { id }, ctx) => (await removeMember(await ctx.auth(), String(id))).success }),
  resetMemberPassword: t.field({ type: ResetRef, args: { id: t.arg.id({ required: true }) }, resolve: async (_r, { id }, ctx) => resetMemberPassword(await ctx.auth(), String(id)) }),
  revokeSession: t.boolean({ args: { id: t.arg.id({ required: true }) }, resolve: async (_r, { id }, ctx) => (await revokeSession(await ctx.auth(), String(id))).success }),
  setPassword: t.boolean({
    description: 'Sets your own password; `current` is needed once you have one',
    args: { current: t.arg.string(), password: t.arg.string({ required: true }) },
    resolve: async (_r, { current, password }, ctx) => {
      const svc = await ctx.auth();
      return (await setOwnPassword(svc, { password, ...(current != null ? { current } : {}) })).success;
    },
  }),
}));
