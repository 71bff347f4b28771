/**
 * The admin dashboard, served by the API process itself:
 *   GET /                       -> 302 /admin
 *   GET /admin, /admin/*        the HTML shell (the app routes on the client, by hash)
 *   GET /admin/app.js?v=<hash>  the bundle, immutable under its content hash
 *   GET /admin/sign-in?token=   a browser navigation gets a page whose button POSTs the token; nothing is spent
 *   POST /admin/sign-in         redeems a one-time CLI link (same origin only): sets the session cookie, -> /admin
 *   GET /admin/invite?token=    an invitation's page: set a password (nothing is spent by opening it)
 *   POST /admin/invite          accepts it (same origin only): creates the account, signs in, -> /admin
 *   GET /admin/preview          a sample customer page with the widget, for the Embed preview
 * The app itself talks only to /graphql. A strict CSP allows scripts from this origin alone.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { Hono, type Context } from 'hono';
import type { HttpDeps } from '../http/authenticate-request';
import { AppError } from '../errors';
import { SECRET_SHAPE } from '../services/admin-sessions/admin-session-secret';
import { signInAfterInvitation, signInWithLink } from '../services/admin-sessions/start-admin-session';
import { acceptInvitation } from '../services/people/invitations';
import { PASSWORD_MAX, PASSWORD_MIN } from '../services/people/password-hash';
import { clientIp } from '../http/client-ip';
import { buildDashboard, DASHBOARD_DIST_DIR, DASHBOARD_SOURCE_DIR, type DashboardBuild } from './build-dashboard';
import { isSameOrigin, sessionCookie } from '../http/session-cookie';

type Assets = { js: Uint8Array; jsGzip: Uint8Array; version: string; css: string };

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self'",
  "frame-ancestors 'self'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

async function readPrebuilt(): Promise<DashboardBuild | null> {
  try {
    const builtAt = (await stat(path.join(DASHBOARD_DIST_DIR, 'app.js'))).mtimeMs;
    const sources = await readdir(DASHBOARD_SOURCE_DIR).catch(() => [] as string[]);
    const newest = Math.max(0, ...(await Promise.all(sources.map(async (f) => (await stat(path.join(DASHBOARD_SOURCE_DIR, f))).mtimeMs))));
    if (newest > builtAt) return null;
    return { js: await readFile(path.join(DASHBOARD_DIST_DIR, 'app.js')), css: await readFile(path.join(DASHBOARD_DIST_DIR, 'app.css'), 'utf8') };
  } catch {
    return null;
  }
}

let cached: Promise<Assets> | null = null;
function loadAssets(deps: HttpDeps): Promise<Assets> {
  cached ??= (async () => {
    const built = (deps.config.env === 'production' ? await readPrebuilt() : null) ?? (await buildDashboard());
    return { js: built.js, jsGzip: gzipSync(built.js, { level: 9 }), version: createHash('sha256').update(built.js).digest('base64url').slice(0, 12), css: built.css };
  })().catch((err) => {
    cached = null;
    throw err;
  });
  return cached;
}

const shell = (a: Assets) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><title>Groundwork dashboard</title>
<style>${a.css}</style>
<script type="module" src="/admin/app.js?v=${a.version}"></script>
</head><body><div id="app"><p class="boot">Loading the dashboard…</p></div>
<noscript>The Groundwork dashboard needs JavaScript.</noscript></body></html>`;

const signInPage = (token: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><title>Sign in to Groundwork</title>
<style>body{font-family:system-ui,sans-serif;display:grid;place-items:center;min-height:90vh;margin:0}main{max-width:28rem;padding:1.5rem}button{font:inherit;padding:.6rem 1.2rem;cursor:pointer}</style></head>
<body><main><h1>Sign in to the Groundwork dashboard</h1>
<p>This link works once. Press the button to open your session.</p>
<form method="post" action="/admin/sign-in"><input type="hidden" name="token" value="${token}"><button type="submit" autofocus>Sign in</button></form>
</main></body></html>`;

const LINK_NEXT = 'Print a new link with <code>npm run cli -- dashboard link --org &lt;slug&gt;</code>, or <a href="/admin">sign in</a>.';
const INVITE_NEXT = 'Ask whoever invited you for a new invitation, or <a href="/admin">sign in</a> if you already have an account.';

const signInRefusedPage = (message: string, next = LINK_NEXT) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><title>Sign-in link refused</title>
<style>body{font-family:system-ui,sans-serif;display:grid;place-items:center;min-height:90vh;margin:0}main{max-width:28rem;padding:1.5rem}</style></head>
<body><main><h1>This link did not sign you in</h1>
<p role="alert">${escapeHtml(message)}.</p>
<p>${next}</p>
</main></body></html>`;

const invitePage = (token: string, error?: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><title>Join Groundwork</title>
<style>body{font-family:system-ui,sans-serif;display:grid;place-items:center;min-height:90vh;margin:0}main{max-width:28rem;padding:1.5rem}label{display:block;margin-top:.8rem}input{font:inherit;width:100%;padding:.4rem;box-sizing:border-box}button{font:inherit;margin-top:1rem;padding:.6rem 1.2rem;cursor:pointer}</style></head>
<body><main><h1>Join Groundwork</h1>
<p>Choose a password (at least ${PASSWORD_MIN} characters) to accept the invitation. The link works once.</p>
${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/admin/invite"><input type="hidden" name="token" value="${token}">
<label for="name">Your name (optional)</label><input id="name" name="name" autocomplete="name" maxlength="200">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="new-password" required minlength="${PASSWORD_MIN}" maxlength="${PASSWORD_MAX}">
<label for="confirm">Password again</label><input id="confirm" name="confirm" type="password" autocomplete="new-password" required minlength="${PASSWORD_MIN}" maxlength="${PASSWORD_MAX}">
<button type="submit">Accept and sign in</button></form>
</main></body></html>`;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** A page navigation (a person's browser), as opposed to a script's fetch, a previewer's HEAD or curl. */
function isNavigation(headers: Headers): boolean {
  const mode = headers.get('sec-fetch-mode');
  // Listed values, not equality: Node's fetch appends its own `cors` to a caller's `navigate`.
  return mode ? mode.split(',').some((m) => m.trim() === 'navigate') : /\btext\/html\b/.test(headers.get('accept') ?? '');
}

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;
const KB_ID = /^kb_[0-9A-Za-z]{1,64}$/;

const previewPage = (org: string, kb: string, theme: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Widget preview</title>
<style>body{font-family:Georgia,serif;margin:0;padding:24px 32px;background:#fafaf7;color:#222}main{max-width:640px}</style></head>
<body><main><h1>Your website</h1><p>This sample page shows the widget as your visitors will see it. Open the chat bubble and ask a question.</p>
<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.</p></main>
<script src="/embed/widget.js" data-org="${org}" data-kb="${kb}" data-theme="${theme}" defer></script></body></html>`;

/** Headers of every page served outside the app shell: this origin's scripts only, never framed. */
function asPage(c: Context) {
  c.header('content-security-policy', CSP);
  c.header('x-frame-options', 'DENY');
}

export function createDashboardRoutes(deps: HttpDeps) {
  const app = new Hono();
  app.get('/', (c) => c.redirect('/admin', 302));

  app.get('/admin/app.js', async (c) => {
    const a = await loadAssets(deps);
    const gzip = /\bgzip\b/.test(c.req.header('accept-encoding') ?? '');
    const headers: Record<string, string> = {
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': c.req.query('v') === a.version ? 'public, max-age=31536000, immutable' : 'no-cache',
      'x-content-type-options': 'nosniff',
      vary: 'Accept-Encoding',
    };
    if (gzip) headers['content-encoding'] = 'gzip';
    return new Response((gzip ? a.jsGzip : a.js) as BodyInit, { headers });
  });

  // A link is spent by a POST from its own page only: mail scanners and link previewers fetch
  // (GET or HEAD) but never submit forms, so they neither burn the link nor receive the session.
  app.get('/admin/sign-in', (c) => {
    c.header('cache-control', 'no-store');
    // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with the page's
    // own form post, which the same-origin check must refuse. same-origin still keeps the token in
    // this URL from every other site (it is sent to this server alone, which already has it).
    c.header('referrer-policy', 'same-origin');
    if (!isNavigation(c.req.raw.headers)) throw new AppError('invalid_input', 'Open this sign-in link in a browser: only a page navigation can use it');
    const token = c.req.query('token') ?? '';
    if (!SECRET_SHAPE.test(token)) throw new AppError('unauthorized', 'This sign-in link is invalid, expired or already used');
    asPage(c);
    return c.html(signInPage(token));
  });

  app.post('/admin/sign-in', async (c) => {
    const trustProxy = deps.config.trustProxy;
    c.header('cache-control', 'no-store');
    c.header('referrer-policy', 'no-referrer');
    let started: Awaited<ReturnType<typeof signInWithLink>>;
    try {
      if (!isSameOrigin(c.req.raw, { trustProxy })) throw new AppError('forbidden', 'A sign-in link is only accepted from its own page');
      const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
      started = await signInWithLink(deps, typeof form.token === 'string' ? form.token : '', { ip: clientIp(c, trustProxy), userAgent: c.req.header('user-agent') ?? null });
    } catch (err) {
      // A person who pressed the button reads the refusal as a page with a way on, not as JSON;
      // same status and message as the JSON answer other clients get from the error handler.
      if (!(err instanceof AppError) || !isNavigation(c.req.raw.headers)) throw err;
      asPage(c);
      return c.html(signInRefusedPage(err.message), err.status as 401);
    }
    c.header('set-cookie', sessionCookie(c.req.raw, started.secret, { trustProxy }));
    return c.redirect('/admin', 303);
  });

  app.get('/admin/invite', (c) => {
    c.header('cache-control', 'no-store');
    // As for sign-in links: same-origin keeps the form post's real Origin (no-referrer sends `null`).
    c.header('referrer-policy', 'same-origin');
    const token = c.req.query('token') ?? '';
    if (!SECRET_SHAPE.test(token)) throw new AppError('unauthorized', 'This invitation is invalid, expired or already used; ask for a new one');
    asPage(c);
    return c.html(invitePage(token));
  });

  app.post('/admin/invite', async (c) => {
    const trustProxy = deps.config.trustProxy;
    c.header('cache-control', 'no-store');
    c.header('referrer-policy', 'no-referrer');
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const field = (k: string) => (typeof form[k] === 'string' ? (form[k] as string) : '');
    let started: Awaited<ReturnType<typeof signInAfterInvitation>>;
    try {
      if (!isSameOrigin(c.req.raw, { trustProxy })) throw new AppError('forbidden', 'An invitation is only accepted from its own page');
      if (field('password') !== field('confirm')) throw new AppError('invalid_input', 'The two passwords differ', { field: 'confirm' });
      const ip = clientIp(c, trustProxy);
      const user = await acceptInvitation(deps, { token: field('token'), password: field('password'), ...(field('name') ? { name: field('name') } : {}) }, ip);
      started = await signInAfterInvitation(deps, user, { ip, userAgent: c.req.header('user-agent') ?? null });
    } catch (err) {
      if (!(err instanceof AppError) || !isNavigation(c.req.raw.headers)) throw err;
      asPage(c);
      // A fixable mistake (a short password, a typo in the confirmation) keeps the form; a spent link does not.
      if (err.code === 'invalid_input' && SECRET_SHAPE.test(field('token'))) {
        // The form again: its next post must carry its real Origin, as from the GET page.
        c.header('referrer-policy', 'same-origin');
        return c.html(invitePage(field('token'), err.message), 400);
      }
      return c.html(signInRefusedPage(err.message, INVITE_NEXT), err.status as 401);
    }
    c.header('set-cookie', sessionCookie(c.req.raw, started.secret, { trustProxy }));
    return c.redirect('/admin', 303);
  });

  app.get('/admin/preview', (c) => {
    const org = c.req.query('org') ?? '';
    const kb = c.req.query('kb') ?? '';
    const theme = c.req.query('theme') ?? 'auto';
    if (!SLUG.test(org) || !KB_ID.test(kb) || !['light', 'dark', 'auto'].includes(theme)) {
      return c.json({ error: { code: 'invalid_input', message: 'preview needs org (slug), kb (kb_…) and theme (light, dark or auto)' } }, 400);
    }
    c.header('content-security-policy', "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'self'");
    return c.html(previewPage(org, kb, theme));
  });

  const page = async () =>
    new Response(shell(await loadAssets(deps)), {
      headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', 'content-security-policy': CSP, 'x-content-type-options': 'nosniff', 'referrer-policy': 'same-origin' },
    });
  app.get('/admin', page);
  app.get('/admin/*', page);
  return app;
}
