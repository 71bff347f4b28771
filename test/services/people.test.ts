/** People (src/services/people): password hashing, invitations, roles, the last-owner guard, tenancy. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext, type ServiceContext } from '../../src/context';
import type { Organization, Role } from '../../db/types';
import type { Actor } from '../../src/services/access/actor';
import { hashPassword, verifyPassword } from '../../src/services/people/password-hash';
import { acceptInvitation, inviteMember, listInvitations, revokeInvitation } from '../../src/services/people/invitations';
import { changeMemberRole, listMembers as listMembersDto, removeMember, resetMemberPassword } from '../../src/services/people/members';
import { listSessions, revokeSession } from '../../src/services/people/org-sessions';
import { signInWithLink, signInWithPassword } from '../../src/services/admin-sessions/start-admin-session';
import { createSignInThrottle, SIGN_IN_FAILS_PER_ACCOUNT as ACCOUNT_FAILURES, SIGN_IN_FAILS_PER_ADDRESS, SIGN_IN_WINDOW_SECONDS } from '../../src/http/sign-in-throttle';
import { authenticateAdminSession } from '../../src/services/admin-sessions/authenticate-admin-session';
import { createOrgWithKey } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

describe('password hashing', () => {
  it('stores scrypt with its parameters and a fresh salt, and verifies only the right password', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).toMatch(/^scrypt\$32768\$8\$2\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('correct horse battery', a)).toBe(true);
    expect(await verifyPassword('correct horse batterY', a)).toBe(false);
    expect(await verifyPassword('anything at all', null)).toBe(false);
    expect(await verifyPassword('anything at all', 'bcrypt$x')).toBe(false);
  });

  it('refuses passwords shorter than 10 or longer than 200 characters', async () => {
    await expect(hashPassword('short')).rejects.toThrow(/at least 10/);
    await expect(hashPassword('x'.repeat(201))).rejects.toThrow(/at most 200/);
  });
});

describe('members', () => {
  let t: TestApp;
  let now = Date.parse('2026-12-03T10:00:00Z');
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const orgRow = async (): Promise<Organization> => {
    const { org } = await createOrgWithKey(t.deps);
    return t.db.selectFrom('organizations').selectAll().where('id', '=', org.id).executeTakeFirstOrThrow();
  };
  const as = (org: Organization, actor: Actor): ServiceContext => {
    const ctx = createContext(t.deps, org, { requestId: 'test', actor });
    return { ...ctx, receivedAt: now };
  };
  const userActor = (user: { id: string; email: string; role: Role }): Actor => ({ type: 'user', id: user.id as never, label: user.email, role: user.role, scope: 'full' });
  const keyOwner: Actor = { type: 'key_session', id: null, label: 'key session', role: 'owner', scope: 'full' };

  const listMembers = async (ctx: ServiceContext) => (await listMembersDto(ctx)).members;
  const listPendingInvitations = async (ctx: ServiceContext) => (await listInvitations(ctx)).invitations;
  async function member(org: Organization, role: Role, email = `${role}-${Math.random().toString(36).slice(2)}@example.test`) {
    const invited = await inviteMember(as(org, keyOwner), { email, role });
    return acceptInvitation(t.deps, { token: invited.token, password: 'a long enough password' }, null);
  }

  it('invites with a one-time link that expires in 7 days and creates the account with the invited role', async () => {
    const org = await orgRow();
    const invited = await inviteMember(as(org, keyOwner), { email: ' Editor@Example.TEST ', role: 'editor' });
    const invitation = { ...invited, ...invited.invitation };
    expect(invitation.path).toBe(`/admin/invite?token=${invitation.token}`);
    expect(invitation.email).toBe('editor@example.test');
    expect(Date.parse(invitation.expires_at) - Date.parse(invitation.created_at)).toBe(7 * 24 * 3600 * 1000);
    const stored = await t.db.selectFrom('invitations').selectAll().where('id', '=', invitation.id as never).executeTakeFirstOrThrow();
    expect(stored.token_hash).not.toContain(invitation.token);
    expect(await listPendingInvitations(as(org, keyOwner))).toHaveLength(1);

    await expect(acceptInvitation(t.deps, { token: invitation.token, password: 'short' }, null)).rejects.toThrow(/at least 10/);
    const user = await acceptInvitation(t.deps, { token: invitation.token, password: 'a long enough password', name: 'Eda' }, '198.51.100.1');
    expect(user).toMatchObject({ email: 'editor@example.test', role: 'editor', name: 'Eda', org_id: org.id });
    expect(await verifyPassword('a long enough password', user.password_hash)).toBe(true);
    await expect(acceptInvitation(t.deps, { token: invitation.token, password: 'a long enough password' }, null)).rejects.toThrow(/invalid, expired or already used/);
    expect(await listPendingInvitations(as(org, keyOwner))).toHaveLength(0);
    const audit = await t.db.selectFrom('audit_log').select(['action', 'actor_label']).where('org_id', '=', org.id).where('action', 'like', '%.%').where('target_type', 'in', ['invitation', 'user']).orderBy('id').execute();
    expect(audit).toEqual([
      { action: 'member.invite', actor_label: 'key session' },
      { action: 'member.join', actor_label: 'editor@example.test' },
    ]);
  });

  it('refuses an expired or revoked invitation', async () => {
    const org = await orgRow();
    const expired = await inviteMember(as(org, keyOwner), { email: `late-${org.id}@example.test`, role: 'viewer' });
    await t.db.updateTable('invitations').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', expired.invitation.id as never).execute();
    await expect(acceptInvitation(t.deps, { token: expired.token, password: 'a long enough password' }, null)).rejects.toThrow(/invalid, expired/);
    const revoked = await inviteMember(as(org, keyOwner), { email: `gone-${org.id}@example.test`, role: 'viewer' });
    await revokeInvitation(as(org, keyOwner), revoked.invitation.id);
    await expect(acceptInvitation(t.deps, { token: revoked.token, password: 'a long enough password' }, null)).rejects.toThrow(/invalid, expired/);
    // A second invitation to the same address replaces the first.
    const first = await inviteMember(as(org, keyOwner), { email: `twice-${org.id}@example.test`, role: 'viewer' });
    await inviteMember(as(org, keyOwner), { email: `twice-${org.id}@example.test`, role: 'editor' });
    await expect(acceptInvitation(t.deps, { token: first.token, password: 'a long enough password' }, null)).rejects.toMatchObject({ code: 'unauthorized' });
  });

  it('lets an admin invite editors but not owners, and an editor invite nobody', async () => {
    const org = await orgRow();
    const admin = await member(org, 'admin');
    const editor = await member(org, 'editor');
    await expect(inviteMember(as(org, userActor(admin)), { email: `boss-${org.id}@example.test`, role: 'owner' })).rejects.toThrow(/cannot change an owner/);
    await expect(inviteMember(as(org, userActor(editor)), { email: `x-${org.id}@example.test`, role: 'viewer' })).rejects.toThrow(/cannot invite/);
    const ok = await inviteMember(as(org, userActor(admin)), { email: `new-${org.id}@example.test`, role: 'editor' });
    const row = await t.db.selectFrom('invitations').select('invited_by').where('id', '=', ok.invitation.id as never).executeTakeFirstOrThrow();
    expect(row.invited_by).toBe(admin.id);
  });

  it('never demotes or removes the last owner, and removing a member ends their sessions', async () => {
    const org = await orgRow();
    const owner = await member(org, 'owner');
    const ownerCtx = as(org, userActor(owner));
    await expect(changeMemberRole(ownerCtx, { id: owner.id, role: 'admin' })).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/needs an owner/) });
    await expect(removeMember(ownerCtx, owner.id)).rejects.toMatchObject({ code: 'conflict' });
    const second = await member(org, 'admin');
    await expect(changeMemberRole(as(org, userActor(second)), { id: owner.id, role: 'viewer' })).rejects.toThrow(/cannot change an owner/);
    await changeMemberRole(ownerCtx, { id: second.id, role: 'owner' });
    await changeMemberRole(ownerCtx, { id: owner.id, role: 'editor' });
    const roles = Object.fromEntries((await listMembers(ownerCtx)).map((m) => [m.email, m.role]));
    expect(roles).toEqual({ [owner.email]: 'editor', [second.email]: 'owner' });

    const viewer = await member(org, 'viewer');
    await t.db
      .insertInto('admin_sessions')
      .values({ id: 'asess_people1' as never, org_id: org.id, secret_hash: 'x'.repeat(64), created_via: 'password', user_id: viewer.id, created_at: new Date(now), expires_at: new Date(now + 3600_000), revoked_at: null })
      .execute();
    await removeMember(as(org, keyOwner), viewer.id);
    const session = await t.db.selectFrom('admin_sessions').select('revoked_at').where('id', '=', 'asess_people1' as never).executeTakeFirstOrThrow();
    expect(session.revoked_at).not.toBeNull();
    expect((await listMembers(ownerCtx)).map((m) => m.email)).not.toContain(viewer.email);
    const actions = await t.db.selectFrom('audit_log').select('action').where('org_id', '=', org.id).where('action', 'in', ['member.role_change', 'member.remove']).execute();
    expect(actions).toHaveLength(3);
  });

  it('keeps organisations apart: org A’s admin cannot see or change org B’s members or invitations', async () => {
    const a = await orgRow();
    const b = await orgRow();
    const adminA = await member(a, 'admin');
    const editorB = await member(b, 'editor');
    const invitationB = await inviteMember(as(b, keyOwner), { email: `pending-${b.id}@example.test`, role: 'viewer' });
    const ctxA = as(a, userActor(adminA));
    expect((await listMembers(ctxA)).map((m) => m.id)).toEqual([adminA.id]);
    expect(await listPendingInvitations(ctxA)).toEqual([]);
    await expect(changeMemberRole(ctxA, { id: editorB.id, role: 'viewer' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(removeMember(ctxA, editorB.id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(revokeInvitation(ctxA, invitationB.invitation.id)).rejects.toMatchObject({ code: 'not_found' });
    // Nor their sessions.
    const sessionB = await signInWithPassword(t.deps, editorB.email, 'a long enough password');
    expect((await listSessions(ctxA)).sessions.map((s) => s.email)).not.toContain(editorB.email);
    const bSessions = (await listSessions(as(b, keyOwner))).sessions;
    const bSessionId = bSessions.find((s) => s.email === editorB.email)!.id;
    await expect(revokeSession(ctxA, bSessionId)).rejects.toMatchObject({ code: 'not_found' });
    await expect(resetMemberPassword(ctxA, editorB.id)).rejects.toMatchObject({ code: 'not_found' });
    expect((await authenticateAdminSession(t.deps, sessionB.secret)).user?.id).toBe(editorB.id);
    const stillB = await t.db.selectFrom('users').select(['role', 'disabled_at']).where('id', '=', editorB.id).executeTakeFirstOrThrow();
    expect(stillB).toEqual({ role: 'editor', disabled_at: null });
  });

  it('signs in with email and password as the person, one 401 for unknown email and wrong password, and not once removed', async () => {
    const org = await orgRow();
    const editor = await member(org, 'editor');
    const session = await signInWithPassword(t.deps, editor.email.toUpperCase(), 'a long enough password', { ip: '198.51.100.7', userAgent: 'test-agent' });
    const sessionId = (await authenticateAdminSession(t.deps, session.secret)).sessionId;
    const row = await t.db.selectFrom('admin_sessions').selectAll().where('id', '=', sessionId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ user_id: editor.id, org_id: org.id, created_via: 'password', ip: '198.51.100.7', user_agent: 'test-agent' });
    const signIn = await t.db.selectFrom('audit_log').selectAll().where('org_id', '=', org.id).where('action', '=', 'session.sign_in').executeTakeFirstOrThrow();
    expect(signIn).toMatchObject({ actor_type: 'user', actor_label: editor.email, ip: '198.51.100.7', changes: { via: 'password' } });

    const wrong = await signInWithPassword(t.deps, editor.email, 'not the password').catch((e) => e);
    const unknown = await signInWithPassword(t.deps, 'nobody@example.test', 'a long enough password').catch((e) => e);
    expect([wrong.code, wrong.message]).toEqual(['unauthorized', 'That email and password do not match an account']);
    expect([unknown.code, unknown.message]).toEqual([wrong.code, wrong.message]);
    expect((await authenticateAdminSession(t.deps, session.secret)).user).toEqual({ id: editor.id, email: editor.email, role: 'editor' });
    await removeMember(as(org, keyOwner), editor.id);
    await expect(authenticateAdminSession(t.deps, session.secret)).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(signInWithPassword(t.deps, editor.email, 'a long enough password')).rejects.toMatchObject({ code: 'unauthorized' });
  });

  it('resets a password with a one-time link that signs in as the person, who then sets a new one', async () => {
    const org = await orgRow();
    const editor = await member(org, 'editor');
    const before = await signInWithPassword(t.deps, editor.email, 'a long enough password');
    const reset = await resetMemberPassword(as(org, keyOwner), editor.id);
    // Their open sessions end; the link signs in as them, once.
    await expect(authenticateAdminSession(t.deps, before.secret)).rejects.toMatchObject({ code: 'unauthorized' });
    const token = new URL(reset.path, 'http://x').searchParams.get('token')!;
    const viaLink = await signInWithLink(t.deps, token);
    const auth = await authenticateAdminSession(t.deps, viaLink.secret);
    expect(auth.user).toEqual({ id: editor.id, email: editor.email, role: 'editor' });
    await expect(signInWithLink(t.deps, token)).rejects.toMatchObject({ code: 'unauthorized' });
    const { setOwnPassword } = await import('../../src/services/people/members');
    const ctx = as(org, { ...userActor(editor), sessionId: auth.sessionId });
    await setOwnPassword(ctx, { password: 'a brand new passphrase' });
    await expect(signInWithPassword(t.deps, editor.email, 'a long enough password')).rejects.toMatchObject({ code: 'unauthorized' });
    expect((await signInWithPassword(t.deps, editor.email, 'a brand new passphrase')).user_id).toBe(editor.id);
  });

  it('throttles failed sign-ins per account and per address until the window ends', async () => {
    let clock = Date.parse('2026-12-03T10:00:00Z');
    const throttle = createSignInThrottle(t.deps, () => clock);
    const email = `target-${Math.random().toString(36).slice(2)}@example.test`;
    for (let i = 0; i < ACCOUNT_FAILURES; i++) {
      await throttle.check(email, `203.0.113.${i % 5}`);
      await throttle.fail(email, `203.0.113.${i % 5}`);
    }
    // Spread over addresses, the guesses still lock the account; another account is untouched.
    await expect(throttle.check(email.toUpperCase(), '192.0.2.99')).rejects.toMatchObject({ code: 'rate_limited', message: expect.stringMatching(/Too many failed sign-ins; retry in \d+ min/) });
    await throttle.check('someone-else@example.test', '192.0.2.99');
    const address = `192.0.2.${Math.floor(Math.random() * 200)}`;
    for (let i = 0; i < SIGN_IN_FAILS_PER_ADDRESS; i++) await throttle.fail(`guess-${i}-${email}`, address);
    await expect(throttle.check('fresh@example.test', address)).rejects.toMatchObject({ code: 'rate_limited' });
    clock += SIGN_IN_WINDOW_SECONDS * 1000;
    await throttle.check('fresh@example.test', address);
    await throttle.check(email, '192.0.2.99');
  });
});
