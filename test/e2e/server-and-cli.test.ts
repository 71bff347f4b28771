/**
 * The product as a new user runs it: `npm start` on the embedded default (a fresh DATA_DIR), the CLI
 * next to the running server (it must attach, not open the directory twice), graceful SIGTERM, and
 * a restart that keeps the data and prints no second key. The CLI's sign-in link is opened in Chromium.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { get } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { launchBrowser, serveHostPages } from '../helpers/browser';
import { startServer } from '../helpers/server-process';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-e2e-'));
const serverEnv = { DATA_DIR: dataDir, DATABASE_URL: '' };
// PORT and HOST as a new user's shell has them: unset (the server gets PORT=0 from startServer).
const { PORT: _port, HOST: _host, ...inherited } = process.env;
const env = { ...inherited, ...serverEnv, LOG_LEVEL: 'warn', NODE_ENV: 'production' };

/** Async on purpose: a blocking spawn would stall the test's event loop and break kept-alive sockets. */
function cli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['src/app-bundle/launch.mjs', 'cli', ...args], { cwd: ROOT, env, timeout: 90_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * The link as a person uses it, in Chromium: another site's form that posts the token is refused and
 * spends nothing; the link's own page signs in once and lands on the dashboard; the link is then spent.
 */
async function signInByLinkInChromium(serverUrl: string, link: string) {
  const browser = await launchBrowser();
  const otherSite = await serveHostPages();
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    // localhost is another site than 127.0.0.1 (not just another port), so this is a cross-site post.
    const forged = otherSite.page(
      '/win-a-prize',
      `<!doctype html><title>Prize</title><form method="post" action="${serverUrl}/admin/sign-in"><input type="hidden" name="token" value="${new URL(link).searchParams.get('token')}"><button>Claim</button></form>`,
    ).replace('127.0.0.1', 'localhost');
    await page.goto(forged);
    const [refused] = await Promise.all([page.waitForResponse((r) => r.url() === `${serverUrl}/admin/sign-in`), page.getByRole('button', { name: 'Claim' }).click()]);
    expect(refused.status()).toBe(403);
    expect((await refused.request().allHeaders())['sec-fetch-site']).toBe('cross-site');
    await page.getByRole('alert').filter({ hasText: 'only accepted from its own page' }).waitFor();
    expect((await context.cookies(serverUrl)).find((c) => c.name === 'gw_admin')).toBeUndefined();

    await page.goto(link);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Knowledge Bases' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/admin');
    expect((await context.cookies(serverUrl)).find((c) => c.name === 'gw_admin')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    await page.getByText('Handbook', { exact: true }).first().waitFor();

    // Spent: the same link again shows why, as a page, and opens no second session.
    const again = await browser.newContext();
    const second = await again.newPage();
    await second.goto(link);
    const [spent] = await Promise.all([second.waitForResponse((r) => r.url() === `${serverUrl}/admin/sign-in`), second.getByRole('button', { name: 'Sign in' }).click()]);
    expect(spent.status()).toBe(401);
    await second.getByRole('alert').filter({ hasText: 'invalid, expired or already used' }).waitFor();
    expect((await again.cookies(serverUrl)).find((c) => c.name === 'gw_admin')).toBeUndefined();
  } finally {
    await browser.close();
    await otherSite.close();
  }
}

const stopAndReportCode = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('npm start on the embedded default, with the CLI beside it', () => {
  it('prints a first key once, serves the API, lets the CLI manage orgs while running, and restarts cleanly', async () => {
    const first = await startServer(serverEnv);
    const key = first.apiKey;
    expect(key, first.output()).toMatch(/^gw_[0-9A-Za-z]{40}$/);
    // The first-start box names the dashboard too.
    expect(first.output()).toMatch(/dashboard: +http:\/\/[\w.]+:\d+\/admin/);
    // And the owner account, with a one-time link that signs in as them, in Chromium.
    expect(first.output()).toMatch(/owner: +owner@localhost/);
    const ownerLink = /sign in: +(http:\/\/\S+\/admin\/sign-in\?token=[0-9A-Za-z]{43})/.exec(first.output())?.[1];
    expect(ownerLink, first.output()).toBeDefined();
    const ownerBrowser = await launchBrowser();
    try {
      const ownerPage = await (await ownerBrowser.newContext()).newPage();
      await ownerPage.goto(ownerLink!);
      await ownerPage.getByRole('button', { name: 'Sign in' }).click();
      await ownerPage.getByRole('heading', { name: 'Knowledge Bases' }).waitFor();
      expect(await ownerPage.locator('header .org').textContent()).toContain('owner@localhost (owner)');
      await ownerPage.getByRole('status').filter({ hasText: 'You have no password yet' }).waitFor();
      await ownerPage.getByRole('link', { name: 'set one under Account' }).click();
      await ownerPage.getByLabel('New password').fill('the owner passphrase');
      await ownerPage.getByRole('button', { name: 'Set password' }).click();
      await ownerPage.getByRole('status').filter({ hasText: 'Your password is set.' }).waitFor();
    } finally {
      await ownerBrowser.close();
    }

    const kbs = await fetch(`${first.url}/api/kbs`, { headers: { 'x-api-key': key! } });
    expect(kbs.status).toBe(200);
    expect(await kbs.json()).toEqual({ kbs: [] });

    // The CLI attaches to the running server's database.
    const created = await cli('org', 'create', '--name', 'Acme', '--plan', 'free', '--json');
    expect(created.code, created.stderr).toBe(0);
    const org = JSON.parse(created.stdout);
    expect(org).toMatchObject({ org: { slug: 'acme', name: 'Acme', plan: 'free' } });
    expect(org.org.id).toMatch(/^org_/);
    expect(org.api_key).toMatch(/^gw_/);

    const acme = { 'x-api-key': org.api_key, 'content-type': 'application/json' };
    const kb = await fetch(`${first.url}/api/kbs`, { method: 'POST', headers: acme, body: JSON.stringify({ name: 'Handbook' }) });
    expect(kb.status).toBe(201);

    const invited = await cli('user', 'invite', '--org', 'acme', '--email', 'ann@acme.test', '--role', 'editor', '--json');
    expect(invited.code, invited.stderr).toBe(0);
    expect(JSON.parse(invited.stdout)).toMatchObject({ email: 'ann@acme.test', role: 'editor', emailed: false, link: expect.stringMatching(new RegExp(`^${first.url}/admin/invite\\?token=[0-9A-Za-z]{43}$`)) });
    const users = await cli('user', 'list', '--org', 'acme');
    expect(users.stdout).toMatch(/ann@acme\.test\teditor\tinvited/);

    const second = await cli('key', 'create', '--org', 'acme', '--json');
    expect(second.code, second.stderr).toBe(0);
    const secondKey = JSON.parse(second.stdout).api_key as string;
    const revoke = await cli('key', 'revoke', secondKey.slice(0, 12), '--org', 'acme');
    expect(revoke.code, revoke.stderr).toBe(0);
    expect((await fetch(`${first.url}/api/kbs`, { headers: { 'x-api-key': secondKey } })).status).toBe(401);

    // A one-time dashboard sign-in link: sets the session cookie once.
    const link = await cli('dashboard', 'link', '--org', 'acme', '--url', first.url, '--json');
    expect(link.code, link.stderr).toBe(0);
    const { url } = JSON.parse(link.stdout) as { url: string };
    expect(url).toMatch(new RegExp(`^${first.url}/admin/sign-in\\?token=[0-9A-Za-z]{43}$`));
    // Without --url: the port the running server listens on (PORT=0 picked one), not PORT's default 3000 (issue 26).
    const guessed = await cli('dashboard', 'link', '--org', 'acme', '--json');
    expect(guessed.code, guessed.stderr).toBe(0);
    expect(JSON.parse(guessed.stdout).url).toMatch(new RegExp(`^${first.url}/admin/sign-in\\?token=[0-9A-Za-z]{43}$`));
    // A browser navigation gets a page whose form spends the link; a plain fetch spends nothing.
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(400);
    // node:http, not fetch: fetch replaces Sec-Fetch-Mode with its own "cors", as a browser's script would.
    const page = await new Promise<string>((ok, fail) =>
      get(url, { headers: { accept: 'text/html', 'sec-fetch-mode': 'navigate' } }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d)).on('end', () => ok(body));
      }).on('error', fail),
    );
    expect(page).toMatch(/<form method="post" action="\/admin\/sign-in">/);
    await signInByLinkInChromium(first.url, url);

    const duplicate = await cli('org', 'create', '--name', 'Acme');
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toMatch(/already exists/);

    expect(await stopAndReportCode(first.child)).toBe(0);

    // Restart: data persisted, no second key printed, old keys still work.
    const again = await startServer(serverEnv);
    expect(again.output()).not.toMatch(/API key:/);
    const list = await fetch(`${again.url}/api/kbs`, { headers: acme });
    expect((await list.json()).kbs.map((k: { name: string }) => k.name)).toEqual(['Handbook']);
    expect(await stopAndReportCode(again.child)).toBe(0);

    // With no server running the CLI opens the directory itself.
    const offline = await cli('org', 'list', '--json');
    expect(offline.code, offline.stderr).toBe(0);
    expect(JSON.parse(offline.stdout).orgs.map((o: { slug: string }) => o.slug).sort()).toEqual(['acme', 'default']);
    // No server: the configuration's address (the stopped server's record is gone).
    const configured = await cli('dashboard', 'link', '--org', 'acme', '--json');
    expect(JSON.parse(configured.stdout).url).toMatch(/^http:\/\/127\.0\.0\.1:3000\/admin\/sign-in\?token=/);
  }, 300_000);
});
