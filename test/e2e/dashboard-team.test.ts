/**
 * A team in real Chromium: the owner invites an editor; the editor opens the invitation link, sets
 * a password and lands in the dashboard with an editor's view (no Settings, Members, audit log or
 * KB deletion, and the server refuses them too); the editor gives the right answer to an
 * unanswered question and the widget answers with it; the owner sees both in the audit log. The
 * editor signs out and in again with email and password. No header is set by hand.
 */
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlClient } from '../helpers/api-client';
import { launchBrowser, serveApp, serveHostPages, type Served } from '../helpers/browser';
import { createWidgetOrg, createWidgetTestApp, type WidgetOrg } from '../widget/widget-fixture';
import { askWidgetAsNewVisitor } from '../helpers/widget-visitor';
import { checkAccessible } from '../helpers/accessibility';

const ARTIFACTS = path.resolve('test-artifacts/dashboard');

const QUESTION = 'Is there a student discount on the Zephyr-9?';
const ANSWER = 'Students get 15% off the Zephyr-9 with a valid student card.';
const EDITOR = 'eda.editor@example.test';
const PASSWORD = 'a long editor passphrase';

let t: Awaited<ReturnType<typeof createWidgetTestApp>>;
let w: WidgetOrg;
let served: Served;
let host: Awaited<ReturnType<typeof serveHostPages>>;
let browser: Browser;
let editor: BrowserContext;
let page: Page;
let shop: string;

beforeAll(async () => {
  t = await createWidgetTestApp({ env: { WIDGET_RATE_LIMIT_PER_MINUTE: '100000', WIDGET_SESSION_RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_PER_MINUTE: '100000' } });
  w = await createWidgetOrg(t);
  served = await serveApp(t.app);
  host = await serveHostPages();
  browser = await launchBrowser();
  editor = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await editor.newPage();
  shop = host.page('/shop.html', `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body><h1>Shop</h1>
     <script src="${served.url}/embed/widget.js" data-org="${w.slug}" data-kb="${w.kbId}" defer></script></body></html>`);
}, 120_000);

afterAll(async () => {
  await editor?.close();
  await browser?.close();
  await Promise.all([served?.close(), host?.close()]);
  await t?.close();
});

const askWidget = (question: string) => askWidgetAsNewVisitor(browser, shop, question);

/** A GraphQL request from the page itself, as the dashboard's code sends it (cookie, same origin, CSRF header). */
const fromPage = (query: string, variables: Record<string, unknown> = {}) =>
  page.evaluate(
    async ([q, v]) => (await fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'x-groundwork-csrf': '1' }, body: JSON.stringify({ query: q, variables: v }) })).json(),
    [query, variables] as const,
  ) as Promise<{ data?: Record<string, unknown> | null; errors?: Array<{ extensions?: { code?: string } }> }>;

describe('a team runs the dashboard', () => {
  it('an invited editor sets a password from the link and sees an editor’s dashboard', async () => {
    const invited = await graphqlClient(t.app, w.apiKey)('mutation($e: String!) { inviteMember(email: $e, role: "editor") { link invitation { role } } }', { e: EDITOR });
    expect(invited.body.errors).toBeUndefined();
    const link = new URL(invited.body.data!.inviteMember.link);
    // The link as the editor receives it, on the address the browser reaches the server at.
    await page.goto(`${served.url}${link.pathname}${link.search}`);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Password again').fill('a different passphrase');
    await page.getByRole('button', { name: 'Accept and sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'The two passwords differ' }).waitFor();
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Password again').fill(PASSWORD);
    await page.getByRole('button', { name: 'Accept and sign in' }).click();
    await page.getByRole('heading', { name: 'Knowledge Bases' }).waitFor({ timeout: 10_000 }).catch(async (err) => {
      throw new Error(`${err}\n${page.url()}\n${await page.content()}`);
    });
    expect(await page.locator('header .org').textContent()).toContain(`${EDITOR} (editor)`);

    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    // The link is spent: opened again, it says so and what to do instead.
    const again = await (await browser.newContext()).newPage();
    await again.goto(`${served.url}${link.pathname}${link.search}`);
    await again.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await again.getByLabel('Password again').fill(PASSWORD);
    await again.getByRole('button', { name: 'Accept and sign in' }).click();
    await again.getByRole('alert').filter({ hasText: 'invalid, expired or already used' }).waitFor();
    expect(await again.locator('main').textContent()).toContain('Ask whoever invited you for a new invitation');
    await again.context().close();

    for (const hidden of ['Settings', 'Members', 'Audit log']) expect(await nav.getByRole('link', { name: hidden }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Delete / }).count()).toBe(0);
    // Hidden is not the guard: the server refuses the editor's own requests.
    const keys = await fromPage('{ apiKeys { id } }');
    expect(keys.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const del = await fromPage('mutation($id: ID!) { deleteKnowledgeBase(id: $id) { success } }', { id: w.kbId });
    expect(del.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await fromPage('{ knowledgeBases { id } }')).data?.knowledgeBases).toEqual([{ id: w.kbId }]);
  }, 90_000);

  it('the editor gives the right answer to an unanswered question, and the widget answers with it', async () => {
    expect(await askWidget(QUESTION)).not.toContain(ANSWER);
    await page.getByRole('link', { name: 'Unanswered' }).click();
    const groups = page.getByRole('list', { name: 'Unanswered question groups' }).locator(':scope > li');
    await groups.first().waitFor();
    const group = groups.filter({ hasText: QUESTION }).first();
    await group.getByRole('button', { name: `Give the right answer: ${QUESTION}` }).click();
    await group.getByLabel('The right answer', { exact: true }).fill(ANSWER);
    await group.getByRole('button', { name: 'Save answer' }).click();
    await group.getByText(/Saved: this answer now answers the question/).waitFor();
    const answer = await askWidget(QUESTION);
    expect(answer).toContain(ANSWER);
  }, 90_000);

  it('the editor signs out and back in with email and password; a wrong password is refused', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Email').fill(EDITOR);
    await page.getByLabel('Password', { exact: true }).fill('not the password');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('alert').filter({ hasText: 'That email and password do not match an account' }).waitFor();
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Knowledge Bases' }).waitFor();
  }, 60_000);

  it('the owner sees the editor joining and giving the answer in the audit log', async () => {
    const owner = await browser.newContext();
    const ownerPage = await owner.newPage();
    await ownerPage.goto(`${served.url}/admin`);
    await ownerPage.getByLabel('API key').fill(w.apiKey);
    await ownerPage.getByRole('button', { name: 'Sign in' }).click();
    await ownerPage.getByRole('heading', { name: 'Knowledge Bases' }).waitFor();
    await ownerPage.getByRole('link', { name: 'Audit log' }).click();
    const table = ownerPage.getByTestId('audit-log');
    await table.waitFor();
    for (const action of ['member.join', 'annotation.create']) {
      const row = table.locator(`tr[data-action="${action}"]`).first();
      expect(await row.textContent(), action).toContain(EDITOR);
    }
    expect(await table.locator('tr[data-action="member.invite"]').count()).toBe(1);
    expect(await table.locator('tr[data-action="session.sign_out"]').first().textContent()).toContain(EDITOR);
    // And the Members view lists the editor, with their session open.
    await ownerPage.getByRole('link', { name: 'Members' }).click();
    await ownerPage.locator(`tr[data-member="${EDITOR}"]`).waitFor();
    expect(await ownerPage.locator(`tr[data-member="${EDITOR}"]`).textContent()).toContain('editor');
    await checkAccessible(ownerPage, 'members', ARTIFACTS);
    await ownerPage.getByRole('link', { name: 'Audit log' }).click();
    await ownerPage.getByTestId('audit-log').waitFor();
    await checkAccessible(ownerPage, 'audit-log', ARTIFACTS);
    await owner.close();
  }, 60_000);
});
