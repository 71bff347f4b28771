/**
 * People over GraphQL and tRPC: `me` says who is calling and what they may do; members,
 * invitations and sessions are the caller's organisation's only; a query key reaches none of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptInvitation } from '../../src/services/people/invitations';
import { signInWithPassword } from '../../src/services/admin-sessions/start-admin-session';
import { graphqlClient, trpcClient } from '../helpers/api-client';
import { createOrgWithKey } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function orgWithMember(email: string) {
  const { api_key } = await createOrgWithKey(t.deps);
  const gql = graphqlClient(t.app, api_key);
  const invited = (await gql('mutation($e: String!) { inviteMember(email: $e, role: "editor") { link invitation { id } } }', { e: email })).body.data!.inviteMember;
  const token = new URL(invited.link).searchParams.get('token')!;
  const user = await acceptInvitation(t.deps, { token, password: 'a long enough password' }, null);
  await signInWithPassword(t.deps, email, 'a long enough password');
  const pending = (await gql('mutation { inviteMember(email: "pending@' + email.split('@')[1] + '", role: "viewer") { invitation { id } } }')).body.data!.inviteMember.invitation.id;
  return { api_key, user, pending };
}

describe('people on GraphQL and tRPC', () => {
  it('tells a full key what it may do, and a query key what it may not', async () => {
    const { api_key } = await createOrgWithKey(t.deps);
    const me = (await graphqlClient(t.app, api_key)('{ me { kind role permissions } }')).body.data!.me;
    expect(me).toMatchObject({ kind: 'api_key', role: 'owner' });
    expect(me.permissions).toContain('member.write');
    const q = (await graphqlClient(t.app, api_key)('mutation { createApiKey(scope: "query") { apiKey } }')).body.data!.createApiKey.apiKey;
    expect((await graphqlClient(t.app, q)('{ me { permissions } }')).body.data!.me.permissions).toEqual(['query']);
    expect((await graphqlClient(t.app, q)('{ members { id } }')).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await trpcClient(t.app, q).query('sessions.list')).status).toBe(403);
  });

  it("keeps each organisation's members, invitations and sessions to itself", async () => {
    const a = await orgWithMember('ann@a.example.test');
    const b = await orgWithMember('bob@b.example.test');
    const gqlA = graphqlClient(t.app, a.api_key);
    const listed = (await gqlA('{ members { email } invitations { email } sessions { email } }')).body.data!;
    expect(listed.members.map((m: { email: string }) => m.email)).toEqual(['ann@a.example.test']);
    expect(listed.invitations.map((i: { email: string }) => i.email)).toEqual(['pending@a.example.test']);
    expect(listed.sessions.map((s: { email: string }) => s.email)).toEqual(['ann@a.example.test']);
    const bSession = (await graphqlClient(t.app, b.api_key)('{ sessions { id } }')).body.data!.sessions[0].id;

    for (const m of [
      ['mutation($id: ID!) { removeMember(id: $id) }', b.user.id],
      ['mutation($id: ID!) { changeMemberRole(id: $id, role: "viewer") { id } }', b.user.id],
      ['mutation($id: ID!) { resetMemberPassword(id: $id) { link } }', b.user.id],
      ['mutation($id: ID!) { revokeInvitation(id: $id) }', b.pending],
      ['mutation($id: ID!) { revokeSession(id: $id) }', bSession],
    ] as const) {
      expect((await gqlA(m[0], { id: m[1] })).body.errors?.[0]?.extensions?.code, m[0]).toBe('NOT_FOUND');
    }
    const trpcA = trpcClient(t.app, a.api_key);
    expect((await trpcA.query('members.list')).body.result.data.members.map((m: { email: string }) => m.email)).toEqual(['ann@a.example.test']);
    expect((await trpcA.mutation('members.remove', { id: b.user.id })).status).toBe(404);
    expect((await trpcA.mutation('sessions.revoke', { id: bSession })).status).toBe(404);
    // B is untouched.
    const bNow = (await graphqlClient(t.app, b.api_key)('{ members { email role } sessions { id } invitations { id } }')).body.data!;
    expect(bNow.members).toEqual([{ email: 'bob@b.example.test', role: 'editor' }]);
    expect(bNow.sessions).toHaveLength(1);
    expect(bNow.invitations).toHaveLength(1);
  });

  it('refuses a bad role or email with a clear 400', async () => {
    const { api_key } = await createOrgWithKey(t.deps);
    const bad = await trpcClient(t.app, api_key).mutation('members.invite', { email: 'not-an-email', role: 'editor' });
    expect(bad.status).toBe(400);
    const role = await graphqlClient(t.app, api_key)('mutation { inviteMember(email: "x@example.test", role: "emperor") { link } }');
    expect(role.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
});
