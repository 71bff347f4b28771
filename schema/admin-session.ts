/**
 * Dashboard sign-in over GraphQL: an API key is exchanged for an HttpOnly, SameSite=Strict session
 * cookie (set on the HTTP response, never returned in the body); sign-out revokes it server-side.
 */
import { assertDashboardRequest, clearedSessionCookie, readSessionCookie, sessionCookie } from '../src/http/session-cookie';
import { revokeAdminSession } from '../src/services/admin-sessions/authenticate-admin-session';
import { signInWithApiKey } from '../src/services/admin-sessions/start-admin-session';
import { builder, type GraphQLContext } from './builder';

const proxy = (ctx: GraphQLContext) => ({ trustProxy: ctx.deps.config.trustProxy, url: ctx.request.url });

const SignInResult = builder.objectRef<{ expires_at: Date }>('DashboardSignIn').implement({
  description: 'A dashboard session was opened; its secret travels only in the HttpOnly cookie',
  fields: (t) => ({ expiresAt: t.field({ type: 'DateTime', resolve: (r) => r.expires_at.toISOString() }) }),
});

builder.mutationFields((t) => ({
  signIn: t.field({
    type: SignInResult,
    description: 'Dashboard only: exchanges an API key for a session cookie (same origin and x-groundwork-csrf: 1 required)',
    args: { apiKey: t.arg.string({ required: true }) },
    resolve: async (_r, { apiKey }, ctx) => {
      assertDashboardRequest(ctx.request.headers, proxy(ctx));
      const started = await signInWithApiKey(ctx.deps, apiKey, { ip: ctx.clientIp, userAgent: ctx.request.headers.get('user-agent') });
      ctx.setCookie(sessionCookie(ctx.request, started.secret, proxy(ctx)));
      return started;
    },
  }),
  signOut: t.boolean({
    description: 'Dashboard only: revokes the current session and clears its cookie',
    resolve: async (_r, _a, ctx) => {
      const secret = readSessionCookie(ctx.request.headers);
      if (secret) {
        assertDashboardRequest(ctx.request.headers, proxy(ctx));
        await revokeAdminSession(ctx.deps, secret, ctx.clientIp);
      }
      ctx.setCookie(clearedSessionCookie(ctx.request, proxy(ctx)));
      return true;
    },
  }),
}));
