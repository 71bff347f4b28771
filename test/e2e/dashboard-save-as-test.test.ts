/**
 * "Save as test" from what visitors asked, in real Chromium: a program asks the chat API (one
 * answered question, one the KB refuses, one more); the administrator opens the answered
 * conversation and saves its answer as a test, saves the unanswered group as a test the KB should
 * refuse, and sees both in the Evals view with where they came from. A conversation a colleague
 * deletes while it is open cannot be saved: the page says why. axe finds no serious or critical
 * violation on the transcript and the group with their forms, saved and refused.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlClient, restClient } from '../helpers/api-client';
import { launchBrowser, serveApp, type Served } from '../helpers/browser';
import { createWidgetOrg, createWidgetTestApp, type WidgetOrg } from '../widget/widget-fixture';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

let t: Awaited<ReturnType<typeof createWidgetTestApp>>;
let w: WidgetOrg;
let served: Served;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];
const sessions: Record<string, string> = {};

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
  t = await createWidgetTestApp({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
  w = await createWidgetOrg(t, { kbName: 'Zephyr support' });
  served = await serveApp(t.app);
  browser = await launchBrowser();
  // bypassCSP: axe is injected as an inline script, which the dashboard's CSP (rightly) refuses.
  context = await browser.newContext({ viewport: DESKTOP, bypassCSP: true });
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await served?.close();
  await t?.close();
});

const transcriptOf = async (sessionId: string) => {
  await page.goto(`${served.url}/admin#/conversations/${w.kbId}/${sessionId}`);
  const transcript = page.getByRole('list', { name: 'Transcript' });
  await transcript.waitFor();
  return transcript;
};

describe('save as test from conversations and unanswered questions', () => {
  it('a program asks the chat API; the administrator signs in', async () => {
    const api = restClient(t.app, w.apiKey);
    for (const [name, message] of [['answered', 'How long can the Zephyr-9 fly?'], ['refused', 'What is the capital of France?'], ['deleted', 'How long does charging take?']] as const) {
      const r = await api.post('/api/rag/chat', { kb_id: w.kbId, message });
      expect(r.status).toBe(200);
      expect(r.body.refused, message).toBe(name === 'refused');
      sessions[name] = r.body.session_id;
    }
    // The fake's bag-of-words vectors give answered questions cosines far below a real model's:
    // mark the answers as well supported, so only the refusal is unanswered here.
    await t.deps.db.updateTable('chat_messages').set({ support: 0.9 }).where('role', '=', 'assistant').where('refused', '=', false).execute();
    await page.goto(`${served.url}/admin`);
    await page.getByLabel('API key').fill(w.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Knowledge Bases' }).waitFor();
  }, 90_000);

  it("saves a conversation's answer as a test expecting its first source's document", async () => {
    const transcript = await transcriptOf(sessions.answered!);
    // Only answers carry the action; it saves the question they answered.
    expect(await transcript.locator('li[data-role="user"] form').count()).toBe(0);
    const save = transcript.locator('li[data-role="assistant"]').getByRole('form', { name: 'Save as test: How long can the Zephyr-9 fly?' });
    await save.getByRole('button', { name: 'Save as test' }).click();
    await save.getByRole('status').waitFor();
    expect(await save.getByRole('status').textContent()).toBe('Saved as a test expecting zephyr.md.');
    expect(await save.getByRole('button', { name: 'Save as test' }).isDisabled()).toBe(true);
  }, 60_000);

  it('saves an unanswered group as a test the knowledge base should refuse', async () => {
    await page.getByRole('link', { name: 'Unanswered' }).click();
    const groups = page.getByRole('list', { name: 'Unanswered question groups' }).locator(':scope > li');
    await groups.first().waitFor();
    expect(await groups.count()).toBe(1);
    const save = groups.first().getByRole('form', { name: 'Save as test: What is the capital of France?' });
    await save.getByLabel('Not answerable').check();
    await save.getByRole('button', { name: 'Save as test' }).click();
    await save.getByRole('status').waitFor();
    expect(await save.getByRole('status').textContent()).toBe('Saved as a test the knowledge base should refuse.');
    await checkAxe('unanswered, saved');
  }, 90_000);

  it('says so when the conversation was deleted while it was open', async () => {
    const transcript = await transcriptOf(sessions.deleted!);
    const save = transcript.getByRole('form', { name: 'Save as test: How long does charging take?' });
    await save.waitFor();
    // A colleague deletes the conversation meanwhile.
    const deleted = await graphqlClient(t.app, w.apiKey)(`mutation($kbId: ID!, $sessionId: ID!) { deleteChatSession(kbId: $kbId, sessionId: $sessionId) { success } }`, {
      kbId: w.kbId,
      sessionId: sessions.deleted,
    });
    expect(deleted.body.data).toEqual({ deleteChatSession: { success: true } });
    await save.getByRole('button', { name: 'Save as test' }).click();
    const alert = save.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('This question can no longer be saved as a test: its conversation was deleted meanwhile. Reload the page.');
    // Nothing was saved; the button stays usable once the page is reloaded elsewhere.
    expect(await save.getByRole('button', { name: 'Save as test' }).isDisabled()).toBe(false);
    await checkAxe('transcript, refused save');
  }, 90_000);

  it('shows both saved tests in the Evals view, with where they came from', async () => {
    await page.getByRole('link', { name: 'Evals' }).click();
    await page.waitForFunction(() => document.querySelectorAll('table[aria-label="Tests"] tbody tr').length === 2);
    const rows = (await page.getByRole('table', { name: 'Tests' }).locator('tbody tr').allTextContents()).map((r) => r.replace(/Delete$/, ''));
    expect(rows).toEqual(['How long can the Zephyr-9 fly?zephyr.mdconversation', 'What is the capital of France?not answerableunanswered']);
    expect(await page.locator('table[aria-label="Tests"] tr[data-answerable="false"]').count()).toBe(1);
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
