/**
 * The admin dashboard in real Chromium, as a new administrator uses it: sign in with a key, create a
 * KB, drop a PDF and a DOCX, watch them turn green without reloading, crawl a local site, ask in the
 * Sandbox and open a citation, copy the embed snippet and see the preview answer, meet the Free plan's
 * voice refusal, create and revoke an API key, sign out. Screenshots of every area, light and dark,
 * desktop and phone, go to test-artifacts/dashboard/.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, serveApp, type Served } from '../helpers/browser';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { startFixtureServer, type FixtureServer } from '../ingest/crawl-fixture-server';
import { createWidgetTestApp } from '../widget/widget-fixture';

const ARTIFACTS = path.resolve('test-artifacts/dashboard');
const DOCS = path.resolve(import.meta.dirname, '../../../shared/data/docs');
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };

let t: Awaited<ReturnType<typeof createWidgetTestApp>>;
let served: Served;
let site: FixtureServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let apiKey: string;
let orgSlug: string;
const pageErrors: string[] = [];

// Ingestion runs as the worker would, in the background, so the page sees statuses change by itself.
let pumping = true;
let pump: Promise<void> = Promise.resolve();
function startJobPump() {
  pump = (async () => {
    while (pumping) {
      await runQueuedJobs(t).catch(() => {});
      await new Promise((r) => setTimeout(r, 300));
    }
  })();
}

/** Screenshots of the current view: light and dark, desktop and phone. */
async function shoot(name: string) {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [label, size] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      await page.setViewportSize(size);
      await page.waitForTimeout(50);
      await page.screenshot({ path: path.join(ARTIFACTS, `${name}-${scheme}-${label}.png`), fullPage: true });
      if (label === 'phone') {
        // Responsive down to 390 px: nothing wider than the viewport.
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      }
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(DESKTOP);
}

async function dropFiles(files: { name: string; type: string; path: string }[]) {
  const payload = files.map((f) => ({ name: f.name, type: f.type, b64: readFileSync(f.path).toString('base64') }));
  await page.evaluate((list) => {
    const dt = new DataTransfer();
    for (const f of list) {
      const bin = atob(f.b64);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      dt.items.add(new File([bytes], f.name, { type: f.type }));
    }
    const zone = document.querySelector('[data-testid="dropzone"]')!;
    zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, payload);
}

const row = (name: string) => page.locator(`tr[data-doc="${name}"]`);

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  t = await createWidgetTestApp({ env: { CRAWL_ALLOW_PRIVATE: 'true', WIDGET_RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_PER_MINUTE: '100000' } });
  const created = await createOrgWithKey(t.deps, { plan: 'free', name: 'Northwind Aerial' });
  apiKey = created.api_key;
  orgSlug = created.org.slug;
  served = await serveApp(t.app);
  site = await startFixtureServer();
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: DESKTOP });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: served.origin });
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  startJobPump();
}, 120_000);

afterAll(async () => {
  pumping = false;
  await pump;
  await context?.close();
  await browser?.close();
  await Promise.all([served?.close(), site?.close()]);
  await t?.close();
});

describe('the dashboard in Chromium, as a new administrator', () => {
  it('redirects / to /admin and asks to sign in; a wrong key is refused with a message', async () => {
    await page.goto(`${served.url}/`);
    expect(new URL(page.url()).pathname).toBe('/admin');
    await page.getByLabel('API key').waitFor();
    await shoot('sign-in');
    await page.getByLabel('API key').fill('gw_not-a-real-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/Invalid or revoked API key/);
  });

  it('signs in with the key; the session lives in an HttpOnly cookie, not in storage', async () => {
    await page.getByLabel('API key').fill(apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Knowledge Bases' }).waitFor();
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'gw_admin')!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(await page.evaluate(() => document.cookie)).toBe('');
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }))).not.toContain(apiKey);
  });

  it('creates a knowledge base', async () => {
    await page.getByLabel('Name', { exact: true }).fill('Drone manuals');
    await page.getByLabel('Description (optional)').fill('Manuals and the support site');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'Drone manuals' }).waitFor();
    expect(page.url()).toMatch(/#\/kbs\/kb_/);
  });

  it('uploads a PDF and a DOCX by drag and drop and watches them turn green without reloading', async () => {
    let navigations = 0;
    page.on('framenavigated', (f) => f === page.mainFrame() && navigations++);
    // Statuses arrive through the documentUpdates subscription (SSE), not by re-reading pages on a timer.
    let subscriptions = 0;
    page.on('request', (r) => r.url().endsWith('/graphql') && /documentUpdates/.test(r.postData() ?? '') && r.headers().accept === 'text/event-stream' && subscriptions++);
    await dropFiles([
      { name: 'layout-parser-paper-with-table.pdf', type: 'application/pdf', path: path.join(DOCS, 'layout-parser-paper-with-table.pdf') },
      { name: 'footnotes.docx', type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', path: path.join(DOCS, 'footnotes.docx') },
    ]);
    // Each file has its own progress bar.
    expect(await page.locator('.uploads li').count()).toBe(2);
    await page.locator('li[data-upload="footnotes.docx"] >> text=uploaded').waitFor({ timeout: 30_000 });
    await page.locator('li[data-upload="layout-parser-paper-with-table.pdf"] >> text=uploaded').waitFor({ timeout: 30_000 });
    for (const name of ['layout-parser-paper-with-table.pdf', 'footnotes.docx']) {
      await row(name).locator('.badge.ready').waitFor({ timeout: 60_000 });
      expect(await row(name).locator('.badge.ready').textContent()).toMatch(/Ready · \d+ chunks?/);
    }
    expect(navigations).toBe(0);
    expect(subscriptions).toBeGreaterThan(0);
    // The counts are read again after a document settles (a query, a round trip after the badge).
    await page.getByText(/2 of 2 ready/).waitFor({ timeout: 30_000 });
    expect(await page.getByText(/2 of 2 ready/).count()).toBe(1);
  }, 120_000);

  it("shows a document's chunks", async () => {
    await row('footnotes.docx').getByRole('link').click();
    await page.getByRole('heading', { name: /Chunks \(\d+\)/ }).waitFor();
    expect(await page.locator('.chunk').count()).toBeGreaterThan(0);
    await shoot('document');
    await page.getByRole('link', { name: '← Documents' }).click();
  });

  it('adds a crawl of a local site and sees its pages arrive', async () => {
    await page.getByLabel('Website URL').fill(`${site.origin}/index.html`);
    await page.getByLabel('Max pages').fill('3');
    await page.getByLabel('Max depth').fill('1');
    await page.getByRole('button', { name: 'Add website' }).click();
    await page.locator(`tr[data-doc^="${site.origin}"] .badge.ready`).first().waitFor({ timeout: 60_000 });
    await page.waitForFunction(() => document.querySelectorAll('.badge.processing').length === 0, null, { timeout: 60_000 });
    expect(await page.locator(`tr[data-doc^="${site.origin}"]`).count()).toBeGreaterThanOrEqual(1);
    await shoot('documents');
  }, 120_000);

  it('asks a question in the Sandbox, opens a citation, and sees the retrieved passages with their scores', async () => {
    await page.getByRole('link', { name: 'Sandbox' }).click();
    await page.getByLabel('Question').fill('What is LayoutParser?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.locator('.msg.assistant').waitFor({ timeout: 30_000 });
    // Streamed through the chatStream subscription: complete once data-streaming is gone, and the
    // app counted the pieces the text arrived in.
    const answer = page.locator('.msg.assistant:not([data-streaming])').first();
    await answer.waitFor({ timeout: 30_000 });
    expect(Number(await answer.getAttribute('data-pieces'))).toBeGreaterThan(1);
    const cite = page.locator('.msg.assistant button.cite').first();
    await cite.waitFor();
    await cite.click();
    const source = page.getByTestId('citation');
    await source.waitFor();
    expect(await source.textContent()).toMatch(/layout-parser-paper-with-table\.pdf/);
    expect(await source.textContent()).toMatch(/score 0\.\d{3}/);
    const passages = page.getByRole('list', { name: 'Retrieved passages' }).locator('li');
    expect(await passages.count()).toBeGreaterThan(0);
    expect(await passages.first().textContent()).toMatch(/lexical \d+\.\d{3} · vector -?\d\.\d{3}/);
    // The conversation is in the KB's history and can be continued.
    await page.locator('text=What is LayoutParser?').nth(1).waitFor();
    await page.getByLabel('Question').fill('Which tables does it show?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.waitForFunction(() => document.querySelectorAll('.msg.assistant').length === 2, null, { timeout: 30_000 });
    await shoot('sandbox');
  }, 60_000);

  it('copies the embed snippet and sees the widget answer in the live preview', async () => {
    await page.getByRole('link', { name: 'Embed' }).click();
    const snippet = (await page.getByTestId('snippet').textContent())!;
    expect(snippet).toContain(`data-org="${orgSlug}"`);
    expect(snippet).toMatch(/data-kb="kb_\w+"/);
    await page.getByRole('button', { name: 'Copy snippet' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(snippet);
    await page.getByLabel('Theme', { exact: true }).last().selectOption('dark');
    const frame = page.frameLocator('iframe.preview');
    // The bubble sits in the preview's bottom-right corner: bring the whole frame into view.
    await page.locator('iframe.preview').evaluate((e) => e.scrollIntoView({ block: 'end' }));
    await frame.locator('groundwork-chat .bubble').click();
    await frame.locator('groundwork-chat .input').fill('What is LayoutParser?');
    await frame.locator('groundwork-chat .input').press('Enter');
    await frame.locator('groundwork-chat .send[aria-disabled="false"]').waitFor({ timeout: 30_000 });
    const answer = await frame.locator('groundwork-chat .msg.bot:not(.typing):not(.greeting) .text').last().textContent();
    expect(answer).toMatch(/layout/i);
    await shoot('embed');
  }, 60_000);

  it('refuses to switch voice on for the Free plan, with the reason; validates allowed origins', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    const voice = page.getByRole('switch', { name: /Voice conversations/ });
    await voice.waitFor();
    expect(await voice.isDisabled()).toBe(true);
    expect(await page.locator('#voice-reason').textContent()).toMatch(/Starter plan; this organisation is on Free/);
    await page.getByLabel('Add an origin').fill('example.com/path');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    expect(await page.getByRole('alert').textContent()).toMatch(/is not an origin/);
    await page.getByLabel('Add an origin').fill('https://www.northwind.example');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.locator('code', { hasText: 'https://www.northwind.example' }).waitFor();
    await page.getByRole('button', { name: 'Remove https://www.northwind.example' }).click();
    await page.locator('code', { hasText: 'https://www.northwind.example' }).waitFor({ state: 'detached' });
  });

  it('creates an API key (shown once, copyable) and revokes it', async () => {
    await page.getByLabel('Name of a new key').fill('CI');
    // Keys are created query-scoped unless full is chosen.
    expect(await page.getByLabel('Scope').inputValue()).toBe('query');
    await page.getByLabel('Scope').selectOption('full');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByTestId('new-key');
    await shown.waitFor();
    const key = (await shown.locator('pre').textContent())!;
    expect(key).toMatch(/^gw_[0-9A-Za-z]{40}$/);
    await shown.getByRole('button', { name: 'Copy key' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    // The new key works against the API, and its row says its scope.
    expect((await fetch(`${served.url}/api/kbs`, { headers: { 'x-api-key': key } })).status).toBe(200);
    expect(await page.locator(`tr[data-key="${key.slice(0, 12)}"] td[data-label="Scope"]`).textContent()).toBe('full');
    await shoot('settings');
    await page.getByRole('button', { name: `Revoke ${key.slice(0, 12)}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await page.locator(`tr[data-key="${key.slice(0, 12)}"] .badge.failed`).waitFor();
    expect((await fetch(`${served.url}/api/kbs`, { headers: { 'x-api-key': key } })).status).toBe(401);
  });

  it('shows usage against the plan', async () => {
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByRole('progressbar', { name: 'Documents' }).waitFor();
    expect(await page.getByRole('progressbar', { name: 'Knowledge bases' }).getAttribute('aria-valuemax')).toBe('1');
    expect(Number(await page.getByRole('progressbar', { name: 'Documents' }).getAttribute('aria-valuenow'))).toBeGreaterThanOrEqual(3);
    // Two questions asked in the Sandbox (stored conversations count; see get-usage.ts).
    expect(Number(/Questions asked: (\d+)/.exec((await page.locator('main').textContent())!)?.[1])).toBeGreaterThanOrEqual(2);
    await page.getByRole('link', { name: 'Knowledge Bases' }).click();
    await page.getByRole('link', { name: 'Drone manuals' }).waitFor();
    await shoot('knowledge-bases');
    await page.getByRole('link', { name: 'Usage' }).click();
    await shoot('usage');
  });

  it('is usable by keyboard: skip link, focusable navigation', async () => {
    await page.reload();
    await page.getByRole('heading', { name: 'Usage' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
  });

  it('signs out: the session is revoked server-side and the sign-in form is back', async () => {
    const secret = (await context.cookies()).find((c) => c.name === 'gw_admin')!.value;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    // Replaying the old cookie does not work any more.
    const replay = await fetch(`${served.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: `gw_admin=${secret}`, origin: served.origin, host: new URL(served.url).host, 'x-groundwork-csrf': '1' },
      body: JSON.stringify({ query: '{ organization { slug } }' }),
    });
    expect((await replay.json()).errors[0].extensions.app_code).toBe('unauthorized');
    expect(pageErrors).toEqual([]);
  });
});
