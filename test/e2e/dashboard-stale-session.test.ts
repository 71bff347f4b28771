/**
 * A session cookie the server no longer knows (expired, revoked, from a database since reset) never
 * locks the administrator out, in Chromium: the dashboard shows the sign-in form, signing in
 * replaces the cookie, and a session that ends while the dashboard is open leads back to the form
 * with a word on why. The stale cookie is the browser's own state (the context's cookie jar), not a
 * request header set by hand.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeAdminSession } from '../../src/services/admin-sessions/authenticate-admin-session';
import { launchBrowser, serveApp, type Served } from '../helpers/browser';
import { createOrgWithKey } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

let t: TestApp;
let served: Served;
let browser: Browser;
let apiKey: string;

beforeAll(async () => {
  t = await createTestApp();
  apiKey = (await createOrgWithKey(t.deps, { plan: 'pro', name: 'Stale Cookie Co' })).api_key;
  served = await serveApp(t.app);
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await served?.close();
  await t?.close();
});

const STALE = 'A'.repeat(43); // the shape of a session secret, known to no session

describe('a stale dashboard session cookie', () => {
  it('shows the sign-in form, and signing in replaces the cookie', async () => {
    const context = await browser.newContext();
    await context.addCookies([{ name: 'gw_admin', value: STALE, url: served.url, httpOnly: true, sameSite: 'Strict' }]);
    const page = await context.newPage();
    await page.goto(`${served.url}/admin`);
    await page.getByLabel('API key').fill(apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Knowledge Bases' }).waitFor();
    const cookie = (await context.cookies(served.url)).find((c) => c.name === 'gw_admin');
    expect(cookie?.value).toMatch(/^[0-9A-Za-z]{43}$/);
    expect(cookie?.value).not.toBe(STALE);
    // And the new cookie works for the next page load.
    await page.reload();
    await page.getByRole('heading', { name: 'Knowledge Bases' }).waitFor();
    await context.close();
  });

  it('a session revoked while the dashboard is open leads back to the form, which says why and signs in again', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${served.url}/admin`);
    await page.getByLabel('API key').fill(apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Knowledge Bases' }).waitFor();
    // The heading renders before the list's own query returns: revoking before that query is
    // answered would end the session on it instead of on the click below.
    await page.getByText('No knowledge base yet').waitFor();
    const secret = (await context.cookies(served.url)).find((c) => c.name === 'gw_admin')!.value;
    await revokeAdminSession(t.deps, secret);

    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByRole('status').filter({ hasText: 'Your dashboard session has ended' }).waitFor();
    await page.getByLabel('API key').fill(apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Knowledge Bases' }).or(page.getByRole('heading', { name: 'Usage' })).first().waitFor();
    expect((await context.cookies(served.url)).find((c) => c.name === 'gw_admin')!.value).not.toBe(secret);
    expect(await page.getByRole('status').filter({ hasText: 'Your dashboard session has ended' }).count()).toBe(0);
    await context.close();
  });
});
