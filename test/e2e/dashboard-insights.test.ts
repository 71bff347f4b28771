/**
 * Conversations, Unanswered questions, Activity and widget feedback in real Chromium. Data is made
 * through the real service as visitors and administrators make it: a visitor asks the widget on a
 * customer page (one answered, one refused question) and rates both answers with the keyboard, a
 * program asks the chat API (a refused question worded differently), the administrator asks in the
 * Sandbox. Then the pages must show it, filter it and group it; axe finds no serious or critical
 * violation on them, light and dark, at 1440 and 390 px. Screenshots for docs/dashboard.md go to
 * docs/images/ with UPDATE_DOC_IMAGES=1 (test/helpers/doc-images.ts).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restClient } from '../helpers/api-client';
import { DOC_IMAGES } from '../helpers/doc-images';
import { launchBrowser, serveApp, serveHostPages, type Served } from '../helpers/browser';
import { createWidgetOrg, createWidgetTestApp, type WidgetOrg } from '../widget/widget-fixture';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

let t: Awaited<ReturnType<typeof createWidgetTestApp>>;
let w: WidgetOrg;
let served: Served;
let host: Awaited<ReturnType<typeof serveHostPages>>;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];

/** axe on the current view in light and dark at 1440 and 390 px: no serious or critical violation. */
async function checkAxe(view: string) {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const size of [DESKTOP, PHONE]) {
      await page.setViewportSize(size);
      await page.waitForTimeout(50);
      if (!(await page.evaluate('typeof window.axe'))?.toString().includes('object')) await page.addScriptTag({ content: AXE });
      const violations = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) })))`)) as unknown[];
      expect(violations, `${view} ${scheme} ${size.width}px`).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), `${view} fits ${size.width}px`).toBeLessThanOrEqual(size.width);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(DESKTOP);
}

beforeAll(async () => {
  mkdirSync(DOC_IMAGES, { recursive: true });
  t = await createWidgetTestApp({ env: { WIDGET_RATE_LIMIT_PER_MINUTE: '100000', WIDGET_SESSION_RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_PER_MINUTE: '100000' } });
  w = await createWidgetOrg(t, { kbName: 'Zephyr support' });
  served = await serveApp(t.app);
  host = await serveHostPages();
  browser = await launchBrowser();
  // bypassCSP: axe is injected as an inline script, which the dashboard's CSP (rightly) refuses.
  context = await browser.newContext({ viewport: DESKTOP, bypassCSP: true });
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await Promise.all([served?.close(), host?.close()]);
  await t?.close();
});

describe('what visitors asked, in the dashboard', () => {
  it('a visitor asks the widget twice and rates both answers with the keyboard', async () => {
    const url = host.page(
      '/shop.html',
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body><h1>Shop</h1>
       <script src="${served.url}/embed/widget.js" data-org="${w.slug}" data-kb="${w.kbId}" defer></script></body></html>`,
    );
    const visitor = await context.newPage();
    await visitor.goto(url);
    await visitor.locator('groundwork-chat .bubble').click();
    const answers = visitor.locator('groundwork-chat .msg.bot:not(.typing):not(.greeting)');
    for (const [i, q] of ['How long can the Zephyr-9 fly?', 'The capital of France?'].entries()) {
      await visitor.locator('groundwork-chat .input').fill(q);
      await visitor.locator('groundwork-chat .input').press('Enter');
      await answers.nth(i).locator('.rate').waitFor({ timeout: 30_000 });
    }
    expect(await answers.nth(0).textContent()).toMatch(/47 minutes/);
    // Keyboard only: focus the first answer's "Helpful" button and press Space; then "Not helpful"
    // on the second, with a comment.
    const helpful = answers.nth(0).getByRole('button', { name: 'Helpful', exact: true });
    // Drawn thumbs, not emoji (empty boxes where no emoji font is installed): no text, one inline
    // SVG each, drawn at its size; the name is the button's label.
    for (const thumb of [helpful, answers.nth(0).getByRole('button', { name: 'Not helpful' })]) {
      expect((await thumb.textContent())?.trim()).toBe('');
      const svg = thumb.locator('svg');
      expect(await svg.count()).toBe(1);
      expect(await svg.getAttribute('aria-hidden')).toBe('true');
      expect((await svg.boundingBox())!.width).toBeGreaterThanOrEqual(14);
    }
    await helpful.focus();
    await visitor.keyboard.press('Space');
    await answers.nth(0).locator('.rate-btn[aria-pressed="true"]').waitFor();
    expect(await helpful.getAttribute('aria-pressed')).toBe('true');
    const notHelpful = answers.nth(1).getByRole('button', { name: 'Not helpful' });
    await notHelpful.focus();
    await visitor.keyboard.press('Enter');
    const note = answers.nth(1).getByRole('textbox', { name: 'What was missing? (optional)' });
    await note.waitFor();
    await note.fill('Shipping questions too');
    await note.press('Enter');
    await note.waitFor({ state: 'detached' });
    expect(await answers.nth(1).getByRole('group', { name: 'Was this answer helpful?' }).count()).toBe(1);
    // The rating is kept: reopening the page shows it from the history.
    await visitor.reload();
    await visitor.locator('groundwork-chat .bubble').click();
    await answers.nth(1).locator('.rate-btn[aria-pressed="true"]').waitFor({ timeout: 15_000 });
    expect(await answers.nth(1).getByRole('button', { name: 'Not helpful' }).getAttribute('aria-pressed')).toBe('true');
    await visitor.close();
  }, 90_000);

  it('a program asks the chat API a refused question, worded differently', async () => {
    const r = await restClient(t.app, w.apiKey).post('/api/rag/chat', { kb_id: w.kbId, message: 'capital of France?' });
    expect(r.status).toBe(200);
  });

  it('the administrator signs in and asks in the Sandbox', async () => {
    await page.goto(`${served.url}/admin`);
    await page.getByLabel('API key').fill(w.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Knowledge Bases' }).waitFor();
    await page.getByRole('link', { name: 'Sandbox' }).click();
    await page.getByLabel('Question').fill('Who makes the Zephyr-9?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.locator('.msg.assistant:not([data-streaming])').waitFor({ timeout: 30_000 });
  }, 60_000);

  it('Conversations lists every conversation with source, turns, refusals and feedback, and filters them', async () => {
    await page.getByRole('link', { name: 'Conversations' }).click();
    const rows = page.getByRole('table', { name: 'Conversations' }).locator('tbody tr');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(3);
    const texts = await rows.allTextContents();
    expect(texts.find((r) => r.includes('How long can the Zephyr-9 fly?'))).toMatch(/Widget.*2.*1.*1 helpful · 1 not helpful/);
    expect(texts.find((r) => r.includes('capital of France?'))).toMatch(/API/);
    expect(texts.find((r) => r.includes('Who makes the Zephyr-9?'))).toMatch(/Sandbox/);
    await page.screenshot({ path: path.join(DOC_IMAGES, 'dashboard-conversations.png') });
    await checkAxe('conversations');

    await page.getByLabel('Source').selectOption('widget');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForFunction(() => document.querySelectorAll('table[aria-label="Conversations"] tbody tr').length === 1);
    await page.getByLabel('Source').selectOption('');
    await page.getByLabel('Refused answers').selectOption('true');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForFunction(() => document.querySelectorAll('table[aria-label="Conversations"] tbody tr').length === 2);
    await page.getByLabel('Refused answers').selectOption('');
    await page.getByLabel('Feedback').selectOption('down');
    await page.getByLabel('Search text').fill('zephyr');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForFunction(() => document.querySelectorAll('table[aria-label="Conversations"] tbody tr').length === 1);
    expect(await rows.first().textContent()).toContain('How long can the Zephyr-9 fly?');
    await page.getByLabel('Search text').fill('no such words anywhere');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No conversations match.').waitFor();
  }, 120_000);

  it("opens a conversation as its transcript, with each answer's sources, refusal and rating", async () => {
    await page.getByLabel('Search text').fill('');
    await page.getByLabel('Feedback').selectOption('');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('link', { name: 'How long can the Zephyr-9 fly?' }).click();
    const transcript = page.getByRole('list', { name: 'Transcript' });
    await transcript.waitFor();
    const answers = transcript.locator('li[data-role="assistant"]');
    expect(await answers.count()).toBe(2);
    expect(await answers.nth(0).textContent()).toContain('Helpful');
    await answers.nth(0).getByText(/Sources \(\d+\)/).click();
    expect(await answers.nth(0).locator('.sources').textContent()).toContain('zephyr.md');
    expect(await answers.nth(1).getAttribute('data-refused')).toBe('true');
    expect(await answers.nth(1).textContent()).toContain('Shipping questions too');
    expect(await page.locator('main').textContent()).toMatch(/Widget · started/);
    await checkAxe('transcript');
  }, 60_000);

  it('Unanswered questions groups the two wordings of the refused question and links to both conversations', async () => {
    // The fake's bag-of-words vectors give answered questions cosines far below a real model's:
    // mark the answers as well supported, so only the refusals are unanswered here.
    await t.deps.db.updateTable('chat_messages').set({ support: 0.9 }).where('role', '=', 'assistant').where('refused', '=', false).execute();
    await page.getByRole('link', { name: 'Unanswered' }).click();
    const groups = page.getByRole('list', { name: 'Unanswered question groups' }).locator(':scope > li');
    await groups.first().waitFor();
    expect(await groups.count()).toBe(1);
    expect(await groups.first().textContent()).toMatch(/capital of France\?.*Asked 2 times \(2 refused/);
    expect(await groups.first().getByRole('link').count()).toBe(2);
    await page.screenshot({ path: path.join(DOC_IMAGES, 'dashboard-unanswered.png') });
    await checkAxe('unanswered');
    await groups.first().getByRole('link', { name: 'The capital of France?' }).click();
    await page.getByRole('list', { name: 'Transcript' }).waitFor();
  }, 60_000);

  it('Activity charts questions per day, answered vs refused, and feedback', async () => {
    await page.getByRole('link', { name: 'Activity' }).click();
    const total = page.getByTestId('activity-total');
    await total.waitFor();
    expect((await total.textContent())!.replace(/\s+/g, ' ')).toMatch(/4 questions · 2 answered · 2 refused · 1 rated helpful · 1 not helpful/);
    expect(await page.getByRole('img', { name: /Questions per day .*: 2 answered, 2 refused/ }).count()).toBe(1);
    expect(await page.locator('svg.chart rect').count()).toBe(60);
    await page.getByRole('button', { name: 'Last 7 days' }).click();
    await page.waitForFunction(() => document.querySelectorAll('svg.chart rect').length === 14);
    await page.screenshot({ path: path.join(DOC_IMAGES, 'dashboard-activity.png') });
    await checkAxe('activity');
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
