/**
 * The fix loop in real Chromium, as people meet it: a visitor asks the widget on a customer page a
 * question the KB cannot answer; the administrator finds it on Unanswered, gives the right answer
 * there, and the widget then answers with it, its source shown as curated. A transcript's source
 * opens the document at the cited chunk, marked.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, serveApp, serveHostPages, type Served } from '../helpers/browser';
import { createWidgetOrg, createWidgetTestApp, type WidgetOrg } from '../widget/widget-fixture';
import { askWidgetAsNewVisitor } from '../helpers/widget-visitor';

const QUESTION = 'Does the Zephyr-9 come with a carrying case?';
const ANSWER = 'Yes: every Zephyr-9 ships with a hard carrying case.';

let t: Awaited<ReturnType<typeof createWidgetTestApp>>;
let w: WidgetOrg;
let served: Served;
let host: Awaited<ReturnType<typeof serveHostPages>>;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let shop: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  t = await createWidgetTestApp({ env: { WIDGET_RATE_LIMIT_PER_MINUTE: '100000', WIDGET_SESSION_RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_PER_MINUTE: '100000' } });
  w = await createWidgetOrg(t);
  served = await serveApp(t.app);
  host = await serveHostPages();
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  shop = host.page(
    '/shop.html',
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body><h1>Shop</h1>
     <script src="${served.url}/embed/widget.js" data-org="${w.slug}" data-kb="${w.kbId}" defer></script></body></html>`,
  );
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await Promise.all([served?.close(), host?.close()]);
  await t?.close();
});

const askWidget = (question: string) => askWidgetAsNewVisitor(browser, shop, question);

describe('the fix loop in the dashboard', () => {
  it('a visitor asks what the knowledge base cannot answer, and an answerable question', async () => {
    expect(await askWidget(QUESTION)).not.toContain(ANSWER);
    expect(await askWidget('How long can the Zephyr-9 fly?')).toMatch(/47 minutes/);
  }, 90_000);

  it('the administrator gives the right answer from the Unanswered list', async () => {
    await page.goto(`${served.url}/admin`);
    await page.getByLabel('API key').fill(w.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Knowledge Bases' }).waitFor();
    // The fake's bag-of-words vectors score support low: the answered question is well supported.
    await t.deps.db.updateTable('chat_messages').set({ support: 0.9 }).where('role', '=', 'assistant').where('refused', '=', false).execute();
    await page.getByRole('link', { name: 'Unanswered' }).click();
    const groups = page.getByRole('list', { name: 'Unanswered question groups' }).locator(':scope > li');
    await groups.first().waitFor();
    expect(await groups.count()).toBe(1);
    const group = groups.first();
    await group.getByRole('button', { name: `Give the right answer: ${QUESTION}` }).click();
    expect(await group.getByLabel('Question', { exact: true }).inputValue()).toBe(QUESTION);
    await group.getByLabel('The right answer', { exact: true }).fill(ANSWER);
    await group.getByRole('button', { name: 'Save answer' }).click();
    await group.getByText(/Saved: this answer now answers the question/).waitFor();
    // Answered by a curated answer, the question leaves the list.
    await page.reload();
    await page.getByRole('status').filter({ hasText: 'Nothing unanswered in this range.' }).waitFor();
    await page.getByRole('link', { name: 'Curated answers' }).click();
    const item = page.getByRole('list', { name: 'Curated answers' }).locator(':scope > li');
    await item.first().waitFor();
    expect(await item.first().textContent()).toContain(ANSWER);
    expect(await item.first().getByRole('switch', { name: `Enabled: ${QUESTION}` }).isChecked()).toBe(true);
  }, 60_000);

  it('the widget then answers with it, its source shown as curated', async () => {
    const answer = await askWidget(QUESTION);
    expect(answer).toContain(ANSWER);
    expect(answer).toContain('Curated answer');
  }, 60_000);

  it("a transcript's source opens the document at the cited chunk", async () => {
    await page.getByRole('link', { name: 'Conversations' }).click();
    const rows = page.getByRole('table', { name: 'Conversations' }).locator('tbody tr');
    await rows.first().waitFor();
    await page.getByRole('link', { name: /How long can the Zephyr-9 fly\?/ }).first().click();
    const transcript = page.getByRole('list', { name: 'Transcript' });
    await transcript.waitFor();
    await transcript.getByText(/Sources \(\d+\)/).first().click();
    const link = transcript.getByRole('link', { name: /Open the cited chunk of zephyr\.md/ }).first();
    const href = (await link.getAttribute('href'))!;
    const chunkId = href.split('/').at(-1)!;
    await link.click();
    const cited = page.locator(`#chunk-${chunkId}`);
    await cited.waitFor();
    expect(await cited.getAttribute('aria-current')).toBe('true');
    expect(await page.locator('.chunk.cited').count()).toBe(1);
    expect(await cited.isVisible()).toBe(true);
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
