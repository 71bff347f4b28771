/**
 * The "done when", in real Chromium, as an administrator does it: create a KB, crawl a small
 * local site, save three Sandbox questions as tests (one not answerable) by clicking, add one with an
 * expected answer, run them and see the figures and the charts; then change a page, re-crawl it, and
 * see the run that starts by itself flagged as a regression, with the case that got worse.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, serveApp, type Served } from '../helpers/browser';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { startFixtureServer, type FixtureServer } from '../ingest/crawl-fixture-server';
import { createWidgetTestApp } from '../widget/widget-fixture';

let t: Awaited<ReturnType<typeof createWidgetTestApp>>;
let served: Served;
let site: FixtureServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let apiKey: string;
const pageErrors: string[] = [];

// Jobs run as the worker would, in the background, so the page sees runs progress by itself.
let pumping = true;
let pump: Promise<void> = Promise.resolve();

const museum = (hours: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Harbour Museum</title></head><body><main><h1>Harbour Museum</h1>
   <h2>Opening hours</h2><p>The Harbour Museum is open ${hours} every day of the week.</p>
   <h2>Tickets</h2><p>A ticket to the Harbour Museum costs 12 euros for adults; children enter for free.</p></main></body></html>`;

beforeAll(async () => {
  t = await createWidgetTestApp({ env: { CRAWL_ALLOW_PRIVATE: 'true', WIDGET_RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_PER_MINUTE: '100000' } });
  apiKey = (await createOrgWithKey(t.deps, { name: 'Harbour' })).api_key;
  served = await serveApp(t.app);
  site = await startFixtureServer();
  site.overrides.set('/index.html', museum('from 9 am to 5 pm'));
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  pump = (async () => {
    while (pumping) {
      await runQueuedJobs(t).catch(() => {});
      await new Promise((r) => setTimeout(r, 300));
    }
  })();
}, 120_000);

afterAll(async () => {
  pumping = false;
  await pump;
  await context?.close();
  await browser?.close();
  await Promise.all([served?.close(), site?.close()]);
  await t?.close();
});

async function askAndSave(question: string, opts: { unanswerable?: boolean } = {}) {
  await page.getByLabel('Question', { exact: true }).fill(question);
  await page.getByRole('button', { name: 'Ask' }).click();
  await page.locator('.msg.assistant:not([data-streaming])').nth((await page.locator('.msg.assistant').count()) - 1).waitFor({ timeout: 30_000 });
  const save = page.getByRole('form', { name: 'Save as test' });
  await save.waitFor({ timeout: 30_000 });
  if (opts.unanswerable) await save.getByLabel('Not answerable').check();
  await save.getByRole('button', { name: 'Save as test' }).click();
  await save.getByRole('status').waitFor();
  return (await save.getByRole('status').textContent()) ?? '';
}

describe('evals in the dashboard', () => {
  it('creates a KB and crawls a small site', async () => {
    await page.goto(`${served.url}/admin`);
    await page.getByLabel('API key').fill(apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Knowledge Bases' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Museum');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'Museum' }).waitFor();
    await page.getByLabel('Website URL').fill(`${site.origin}/index.html`);
    await page.getByLabel('Max pages').fill('1');
    await page.getByLabel('Max depth').fill('0');
    await page.getByRole('button', { name: 'Add website' }).click();
    await page.locator(`tr[data-doc^="${site.origin}"] .badge.ready`).first().waitFor({ timeout: 60_000 });
  }, 120_000);

  it('saves three Sandbox questions as tests, one of them not answerable', async () => {
    await page.getByRole('link', { name: 'Sandbox' }).click();
    expect(await askAndSave('When is the Harbour Museum open?')).toMatch(/Saved as a test expecting http/);
    expect(await askAndSave('How much does a ticket to the Harbour Museum cost?')).toMatch(/Saved as a test expecting http/);
    expect(await askAndSave('Who won the chess olympiad in 1998?', { unanswerable: true })).toBe('Saved as a test the knowledge base should refuse.');
  }, 120_000);

  it('adds a test with an expected answer, runs them all and sees the figures and the charts', async () => {
    await page.getByRole('link', { name: 'Evals' }).click();
    const tests = page.getByRole('table', { name: 'Tests' }).locator('tbody tr');
    await page.waitForFunction(() => document.querySelectorAll('table[aria-label="Tests"] tbody tr').length === 3);
    expect(await tests.locator('text=sandbox').count()).toBe(3);
    expect(await page.locator('tr[data-answerable="false"]').count()).toBe(1);
    const add = page.getByRole('form', { name: 'Add a test' });
    await add.getByLabel('Question').fill('What are the opening hours of the Harbour Museum?');
    await add.getByLabel('Expected answer (optional)').fill('from 9 am to 5 pm');
    await add.getByRole('button', { name: 'Add test' }).click();
    await page.waitForFunction(() => document.querySelectorAll('table[aria-label="Tests"] tbody tr').length === 4);

    await page.getByRole('button', { name: 'Run' }).click();
    const latest = page.getByTestId('latest-run');
    await latest.waitFor({ timeout: 60_000 });
    expect(await latest.textContent()).toMatch(/run by hand · top_k 5 · 4 questions/);
    const figure = async (key: string) => (await latest.locator(`[data-figure="${key}"] dd`).textContent())?.trim();
    expect(await figure('hitAtK')).toBe('100.0%');
    expect(await figure('answerContains')).toBe('100.0%');
    expect(await figure('refusalRecall')).toBe('100.0%');
    expect(await page.getByTestId('regression').count()).toBe(0);
    for (const key of ['hitAt1', 'hitAtK', 'answerContains', 'refusalPrecision', 'refusalRecall']) {
      expect(await page.getByTestId(`chart-${key}`).locator('svg[role="img"]').count(), key).toBe(1);
    }
    expect(await page.getByTestId('chart-hitAtK').locator('rect[data-value="1"]').count()).toBe(1);
  }, 120_000);

  it('re-crawls a changed page and sees the automatic run flag the regression', async () => {
    site.overrides.set('/index.html', museum('in the afternoons only'));
    await page.getByRole('link', { name: 'Knowledge Bases' }).click();
    await page.getByRole('link', { name: 'Museum' }).click();
    await page.locator(`tr[data-doc^="${site.origin}"]`).getByRole('link').first().click();
    await page.getByRole('button', { name: 'Re-crawl now' }).click();
    await page.getByRole('link', { name: 'Evals' }).click();
    const flag = page.getByTestId('regression');
    // The run starts after the re-crawl finishes; the view follows runs while one is queued or running.
    await page.waitForFunction(() => document.querySelector('ol[aria-label="Runs"] li[data-trigger="recrawl"][data-status="completed"]') !== null || !!document.querySelector('[data-testid="run-progress"]'), null, { timeout: 60_000 }).catch(() => undefined);
    for (let i = 0; i < 60 && (await flag.count()) === 0; i++) {
      await page.getByRole('link', { name: 'Sandbox' }).click();
      await page.getByRole('link', { name: 'Evals' }).click();
      await page.waitForTimeout(500);
    }
    await flag.waitFor({ timeout: 30_000 });
    expect(await flag.textContent()).toMatch(/^Regression after re-crawl: Answer contains expected 100\.0% → 0\.0%/);
    expect(await page.getByTestId('latest-run').textContent()).toMatch(/after re-crawl/);
    const worse = page.getByTestId('comparison').locator('tr[data-change="worse"]');
    expect(await worse.count()).toBe(1);
    expect(await worse.textContent()).toContain('What are the opening hours of the Harbour Museum?');
    // One bar per run: the first at 100%, the automatic one at 0%.
    expect(await page.getByTestId('chart-answerContains').locator('rect[data-value="1"]').count()).toBe(1);
    expect(await page.getByTestId('chart-answerContains').locator('rect[data-value="0"]').count()).toBe(1);
    expect(pageErrors).toEqual([]);
  }, 180_000);
});
