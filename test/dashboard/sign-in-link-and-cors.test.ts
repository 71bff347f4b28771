/**
 * One-time sign-in links are spent only by the form their page posts (HEAD, previewers and plain
 * fetches spend nothing; the post itself is driven in Chromium in test/e2e/server-and-cli.test.ts); /graphql grants credentialed CORS to the dashboard's own origin alone;
 * TRUST_PROXY makes X-Forwarded-Host/Proto name that origin behind a proxy that rewrites Host.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignInLink } from '../../src/services/admin-sessions/create-sign-in-link';
import { createOrgWithKey } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

const ORIGIN = 'http://groundwork.test';
const HOST = 'groundwork.test';
const NAVIGATE = { accept: 'text/html,application/xhtml+xml', 'sec-fetch-mode': 'navigate', 'sec-fetch-site': 'none', host: HOST };

let t: TestApp;
let proxied: TestApp;
let orgId: string;
let orgKey: string;
let proxiedKey: string;

beforeAll(async () => {
  t = await createTestApp();
  proxied = await createTestApp({ env: { TRUST_PROXY: 'true' } });
  const created = await createOrgWithKey(t.deps, { plan: 'pro' });
  orgId = created.org.id;
  orgKey = created.api_key;
  proxiedKey = (await createOrgWithKey(proxied.deps, { plan: 'pro' })).api_key;
});
afterAll(async () => {
  await t?.close();
  await proxied?.close();
});

const link = async () => (await createSignInLink(t.deps, orgId as never)).token;

describe('one-time sign-in links', () => {
  it('HEAD, a previewer and a plain fetch spend nothing; a navigation gets the page whose form spends it', async () => {
    const token = await link();
    const url = `${ORIGIN}/admin/sign-in?token=${token}`;
    const head = await t.app.fetch(new Request(url, { method: 'HEAD' }));
    expect(head.headers.get('set-cookie')).toBeNull();
    expect(head.status).toBe(400);
    const fetched = await t.app.fetch(new Request(url, { headers: { accept: '*/*', 'sec-fetch-mode': 'cors' } }));
    expect(fetched.status).toBe(400);
    expect(fetched.headers.get('set-cookie')).toBeNull();
    expect((await fetched.json()).error.code).toBe('invalid_input');
    // A previewer that asks for HTML gets the page, which spends nothing by itself.
    const preview = await t.app.fetch(new Request(url, { headers: { accept: 'text/html' } }));
    expect(preview.status).toBe(200);
    expect(preview.headers.get('set-cookie')).toBeNull();

    const page = await t.app.fetch(new Request(url, { headers: NAVIGATE }));
    expect(page.status).toBe(200);
    expect(page.headers.get('set-cookie')).toBeNull();
    expect(page.headers.get('cache-control')).toBe('no-store');
    const html = await page.text();
    expect(html).toMatch(/<form method="post" action="\/admin\/sign-in">/);
    expect(html).toContain(`name="token" value="${token}"`);

    // The page's own form post must carry its real Origin (no-referrer would make it `null`); a real
    // Chromium spends the link from this page, and is refused from another site's, in
    // test/e2e/server-and-cli.test.ts.
    expect(page.headers.get('referrer-policy')).toBe('same-origin');
  });

  it('a malformed token is refused at once', async () => {
    expect((await t.app.fetch(new Request(`${ORIGIN}/admin/sign-in?token=%3Cscript%3E`, { headers: NAVIGATE }))).status).toBe(401);
  });
});

describe('CORS on /graphql', () => {
  const preflight = (app: TestApp, origin: string, headers: Record<string, string> = {}) =>
    app.app.fetch(
      new Request(`${ORIGIN}/graphql`, {
        method: 'OPTIONS',
        headers: { host: HOST, origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-groundwork-csrf', ...headers },
      }),
    );

  it('grants no credentials and no CSRF header to another origin', async () => {
    const res = await preflight(t, 'https://evil.example');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('access-control-allow-headers') ?? '').not.toMatch(/x-groundwork-csrf/i);
    // API-key clients in other origins keep working.
    expect(res.headers.get('access-control-allow-headers')).toMatch(/x-api-key/);
  });

  it("grants the dashboard's own origin its cookie and CSRF header", async () => {
    const res = await preflight(t, ORIGIN);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('access-control-allow-headers')).toMatch(/x-groundwork-csrf/);
  });
});

describe('TRUST_PROXY', () => {
  const signIn = (app: TestApp, key: string) =>
    app.app.fetch(
      new Request('http://127.0.0.1:3000/graphql', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          host: '127.0.0.1:3000',
          origin: 'https://dash.example.com',
          'x-forwarded-host': 'dash.example.com',
          'x-forwarded-proto': 'https',
          'x-groundwork-csrf': '1',
        },
        body: JSON.stringify({ query: 'mutation($k: String!) { signIn(apiKey: $k) { expiresAt } }', variables: { k: key } }),
      }),
    );

  it('without it, a proxy that rewrites Host is refused (X-Forwarded-Host is not believed)', async () => {
    const body = await (await signIn(t, orgKey)).json();
    expect(body.errors[0].extensions.app_code).toBe('forbidden');
  });

  it('with it, X-Forwarded-Host/Proto name the origin, and the cookie is Secure', async () => {
    const res = await signIn(proxied, proxiedKey);
    const body = await res.json();
    expect(body.errors).toBeUndefined();
    expect(res.headers.get('set-cookie')).toMatch(/; Secure$/);
  });

  it('with it, an origin whose scheme differs from X-Forwarded-Proto is refused', async () => {
    const res = await proxied.app.fetch(
      new Request('http://127.0.0.1:3000/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', host: '127.0.0.1:3000', origin: 'http://dash.example.com', 'x-forwarded-host': 'dash.example.com', 'x-forwarded-proto': 'https', 'x-groundwork-csrf': '1' },
        body: JSON.stringify({ query: 'mutation($k: String!) { signIn(apiKey: $k) { expiresAt } }', variables: { k: proxiedKey } }),
      }),
    );
    expect((await res.json()).errors[0].extensions.app_code).toBe('forbidden');
  });
});
