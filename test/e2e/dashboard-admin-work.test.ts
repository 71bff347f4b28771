/**
 * The dashboard where an administrator's daily work happens, in real Chromium: an honest Sandbox
 * (the answer path's own decision, history, top_k compared), chunks searched, switched off and
 * edited, a crawled site page by page with its schedule, re-crawl and Retry, failures in words, and
 * the error paths (a 413 upload, a failed delete, a failed switch, a dead URL). Data is created
 * through the real service; axe checks the pages in light and dark at 1440 and 390 px.
 */
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlClient, restClient } from '../helpers/api-client';
import { checkAccessible as checkAccessibleIn, PHONE, WIDE } from '../helpers/accessibility';
import { launchBrowser, serveApp, type Served } from '../helpers/browser';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { DOC_IMAGES } from '../helpers/doc-images';
import { uploadFile } from '../helpers/upload';
import { startFixtureServer, type FixtureServer } from '../ingest/crawl-fixture-server';
import { createWidgetTestApp } from '../widget/widget-fixture';

const ARTIFACTS = path.resolve('test-artifacts/dashboard');

let t: Awaited<ReturnType<typeof createWidgetTestApp>>;
let served: Served;
let site: FixtureServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let apiKey: string;
let kbId: string;
let crawlId: string;
let deadId: string;
let deadStarted = 0;
const pageErrors: string[] = [];

let pumping = true;
let pump: Promise<void> = Promise.resolve();

const ZEPHYR = 'The Zephyr-9 drone flies for 42 minutes on one battery and folds into a backpack.';
const handbook = [
  '# Zephyr-9 handbook',
  '',
  '## Flight',
  '',
  ZEPHYR,
  '',
  '## Charging',
  '',
  'Charging the Zephyr-9 battery from empty to full takes 75 minutes with the supplied charger.',
  '',
  '## Warranty',
  '',
  'Warranty claims for the Zephyr-9 are handled by the Lisbon office within ten days of the request.',
].join('\n');

/** A port nothing listens on: bound, read, released. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

const checkAccessible = (name: string) => checkAccessibleIn(page, name, ARTIFACTS);

/** Every element matched is within the viewport's width (not cut off, not scrolled out sideways). */
async function allWithinWidth(selector: string): Promise<boolean> {
  return page.evaluate(
    ({ selector, width }) =>
      [...document.querySelectorAll(selector)].every((e) => {
        const r = e.getBoundingClientRect();
        return r.width > 0 && r.left >= 0 && r.right <= width;
      }),
    { selector, width: PHONE.width },
  );
}

const gotoHash = async (hash: string) => {
  await page.evaluate((h) => (location.hash = h), hash);
};

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  t = await createWidgetTestApp({ env: { CRAWL_ALLOW_PRIVATE: 'true', MAX_UPLOAD_BYTES: '200000', RATE_LIMIT_PER_MINUTE: '100000' } });
  const created = await createOrgWithKey(t.deps, { plan: 'pro', name: 'Northwind Aerial' });
  apiKey = created.api_key;
  served = await serveApp(t.app);
  site = await startFixtureServer();
  // One page of the site is gone: the crawl lists it as failed, with Retry.
  site.overrides.set('/pcre2-config.html', null);
  const rest = restClient(t.app, apiKey);
  kbId = (await rest.post('/api/kbs', { name: 'Drone manuals' })).body.kb.id;
  await uploadFile(t.app, apiKey, kbId, { name: 'zephyr-handbook.md', bytes: handbook });
  await uploadFile(t.app, apiKey, kbId, { name: 'zephyr-flyer.md', bytes: `# Flyer\n\n${ZEPHYR}` });
  crawlId = (await rest.post('/api/ingest/url', { kb_id: kbId, url: `${site.origin}/index.html`, max_pages: 6, max_depth: 1 })).body.document.id;
  deadStarted = Date.now();
  deadId = (await rest.post('/api/ingest/url', { kb_id: kbId, url: `http://127.0.0.1:${await closedPort()}/docs/` })).body.document.id;
  pump = (async () => {
    while (pumping) {
      await runQueuedJobs(t).catch(() => {});
      await new Promise((r) => setTimeout(r, 300));
    }
  })();
  browser = await launchBrowser();
  // axe is injected by evaluate; the page's CSP stays as served otherwise.
  context = await browser.newContext({ viewport: WIDE, bypassCSP: true });
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto(`${served.url}/admin`);
  await page.getByLabel('API key').fill(apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Knowledge Bases' }).waitFor();
}, 180_000);

afterAll(async () => {
  pumping = false;
  await pump;
  await context?.close();
  await browser?.close();
  await Promise.all([served?.close(), site?.close()]);
  await t?.close();
});

describe('the dashboard for daily work, in Chromium', () => {
  it('a dead URL fails fast, in plain words, with the technical detail behind a disclosure and a Retry button', async () => {
    await gotoHash(`#/kbs/${kbId}`);
    const row = page.locator(`tr[data-doc^="http://127.0.0.1:"][data-doc$="/docs/"]`);
    await row.locator('.badge.failed').waitFor({ timeout: 60_000 });
    // One attempt, not five over ~90 s (wide margin: the machine is shared).
    expect(Date.now() - deadStarted).toBeLessThan(45_000);
    const failure = row.locator('.failure');
    expect(await failure.locator('.error-text').textContent()).toMatch(/could not be reached: nothing answered at that address/);
    expect(await failure.locator('.error-text').textContent()).not.toMatch(/ECONNREFUSED|attempts/);
    await failure.getByText('Technical details').click();
    expect(await failure.locator('code.detail').textContent()).toMatch(/refused the connection/);
    expect(await row.getByRole('button', { name: /^Retry / }).isVisible()).toBe(true);
    const status = await restClient(t.app, apiKey).get(`/api/kbs/${kbId}/documents/${deadId}`);
    expect(status.body.document.status).toBe('failed');
  }, 90_000);

  it('an upload over the limit shows as an error (the 413 is REST-shaped), stays after a reload until dismissed, and no document appears', async () => {
    await page.locator('tr[data-doc="zephyr-handbook.md"] .badge.ready').waitFor({ timeout: 60_000 });
    const big = 'x'.repeat(400_000);
    await page.evaluate((text) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], 'too-big.txt', { type: 'text/plain' }));
      const zone = document.querySelector('[data-testid="dropzone"]')!;
      zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, big);
    const item = page.getByRole('list', { name: 'Refused uploads' }).locator('li[data-refused="too-big.txt"]');
    await item.locator('.error-text').waitFor({ timeout: 30_000 });
    expect(await item.textContent()).toMatch(/refused: .*exceeds the limit/);
    expect(await item.textContent()).not.toMatch(/uploaded/);
    expect(await page.locator('tr[data-doc="too-big.txt"]').count()).toBe(0);

    // A reload keeps the refusal and its reason; Dismiss removes it for good.
    await page.reload();
    await item.locator('.error-text').waitFor({ timeout: 30_000 });
    expect(await item.textContent()).toMatch(/refused: .*exceeds the limit/);
    await page.getByRole('button', { name: 'Dismiss the refusal of too-big.txt' }).click();
    await item.waitFor({ state: 'detached' });
    await page.reload();
    await page.locator('tr[data-doc="zephyr-handbook.md"]').waitFor();
    expect(await page.locator('li[data-refused]').count()).toBe(0);
  });

  it('choosing a file the KB already has says so by name and adds no second document', async () => {
    await gotoHash(`#/kbs/${kbId}`);
    await page.locator('tr[data-doc="zephyr-flyer.md"] .badge.ready').waitFor({ timeout: 60_000 });
    const before = await page.locator('tr[data-doc]').count();
    // The same bytes under another name: the content hash, not the filename, makes it a duplicate.
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'choose files' }).click();
    await (await chooser).setFiles({ name: 'flyer-again.md', mimeType: 'text/markdown', buffer: Buffer.from(`# Flyer\n\n${ZEPHYR}`) });
    const item = page.getByRole('list', { name: 'Uploads' }).locator('li[data-upload="flyer-again.md"]');
    await item.getByText('already in this knowledge base as zephyr-flyer.md: not added again').waitFor({ timeout: 30_000 });
    expect(await item.textContent()).not.toMatch(/uploaded|refused/);
    await page.reload();
    await page.locator('tr[data-doc="zephyr-flyer.md"]').waitFor();
    expect(await page.locator('tr[data-doc]').count()).toBe(before);
    expect(await page.locator('tr[data-doc="flyer-again.md"]').count()).toBe(0);
    const docs = (await restClient(t.app, apiKey).get(`/api/kbs/${kbId}/documents`)).body;
    expect(JSON.stringify(docs)).not.toContain('flyer-again.md');
  });

  it('"Select all" is on screen and works at 390 px, where the table header is hidden', async () => {
    await page.setViewportSize(PHONE);
    try {
      const selectAll = page.getByRole('checkbox', { name: 'Select all', exact: true });
      await selectAll.waitFor();
      const box = (await selectAll.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
      const rows = await page.locator('tr[data-doc]').count();
      expect(rows).toBeGreaterThan(1);
      await selectAll.click();
      await page.getByRole('button', { name: `Re-ingest selected (${rows})` }).waitFor();
      expect(await page.locator('tr[data-doc] input[type="checkbox"]:not([role="switch"]):checked').count()).toBe(rows);
      await selectAll.click();
      await page.getByRole('button', { name: 'Re-ingest selected (0)' }).waitFor();
    } finally {
      await page.setViewportSize(WIDE);
    }
    // On a wide screen the header's own checkbox does it, and the phone's is not shown twice.
    expect(await page.getByRole('checkbox', { name: 'Select all', exact: true }).count()).toBe(0);
    expect(await page.getByRole('checkbox', { name: 'Select all shown documents' }).isVisible()).toBe(true);
  });

  it('searches a document\'s chunks, marks duplicates, switches one off and edits another (retrieval follows)', async () => {
    await page.locator('tr[data-doc="zephyr-handbook.md"]').getByRole('link').click();
    await page.getByRole('heading', { name: /Chunks \(\d+\)/ }).waitFor();
    // Focus moved to the new page's heading.
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1');
    await page.getByLabel("Search this document's chunks").fill('42 minutes');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('status').filter({ hasText: /contain/ }).waitFor();
    const chunks = page.locator('.chunk');
    expect(await chunks.count()).toBe(1);
    const chunk = chunks.first();
    expect(await chunk.textContent()).toMatch(/42 minutes/);
    expect(await chunk.textContent()).toMatch(/duplicate: 1 other chunk/);
    await chunk.getByRole('button', { name: /^Switch off chunk/ }).click();
    await chunk.locator('.badge', { hasText: 'switched off' }).waitFor();
    const gql = graphqlClient(t.app, apiKey);
    const passages = async (q: string) =>
      (await gql(`query($k: ID!, $q: String!) { retrieve(kbId: $k, query: $q, topK: 10) { passages { filename text } } }`, { k: kbId, q })).body.data!.retrieve.passages as Array<{ filename: string; text: string }>;
    expect((await passages('Zephyr-9 42 minutes battery')).filter((p) => p.filename === 'zephyr-handbook.md' && p.text.includes('42 minutes'))).toEqual([]);
    // The flyer's copy of the same text is still there: only the chunk switched off left.
    expect((await passages('Zephyr-9 42 minutes battery')).some((p) => p.filename === 'zephyr-flyer.md')).toBe(true);

    await page.getByRole('button', { name: 'Show all' }).click();
    await page.getByLabel("Search this document's chunks").fill('Lisbon');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.locator('.chunk', { hasText: 'Lisbon' }).first().waitFor();
    const n = await page.locator('.chunk', { hasText: 'Lisbon' }).first().getAttribute('data-chunk');
    const warranty = page.locator(`.chunk[data-chunk="${n}"]`);
    await warranty.getByRole('button', { name: /^Edit chunk/ }).click();
    // A long unbroken token (a form's file name), as crawled code pages have: it must wrap at 390 px.
    await warranty.getByRole('textbox').fill('Warranty claims for the Zephyr-9 are handled by the Porto office within five days, on zephyr9_warranty_claim_form_reference_v2_final_revision.pdf.');
    await warranty.getByRole('button', { name: 'Save and re-embed' }).click();
    await warranty.locator('.badge', { hasText: 'edited' }).waitFor();
    expect((await passages('Porto office warranty')).some((p) => p.text.includes('Porto office'))).toBe(true);
    await checkAccessible('chunks');
  }, 90_000);

  it("shows a crawled site page by page, with its schedule, re-crawl now and Retry on a failed page", async () => {
    await gotoHash(`#/kbs/${kbId}/doc/${crawlId}`);
    await page.getByRole('heading', { name: /^Pages \(/ }).waitFor({ timeout: 60_000 });
    await page.locator('tr[data-page] .badge.ready').first().waitFor({ timeout: 60_000 });
    const rows = page.locator('tr[data-page]');
    expect(await rows.count()).toBeGreaterThanOrEqual(3);
    const first = page.locator('tr[data-page]', { has: page.locator('.badge.ready') }).first();
    expect(Number(await first.locator('td[data-label="Chunks"]').textContent())).toBeGreaterThan(0);
    expect(await first.locator('td[data-label="Changed"]').textContent()).toMatch(/new/);
    expect(await first.locator('td[data-label="Last fetched"]').textContent()).not.toBe('—');
    // The removed page failed, in words, with Retry.
    const gone = page.locator(`tr[data-page="${site.origin}/pcre2-config.html"]`);
    await gone.waitFor();
    expect(await gone.textContent()).toMatch(/does not exist/);
    // Schedule.
    await page.getByLabel('Re-crawl', { exact: true }).selectOption('weekly');
    await page.getByText('The site is re-crawled weekly.').waitFor();
    const doc = (await restClient(t.app, apiKey).get(`/api/kbs/${kbId}/documents/${crawlId}`)).body.document;
    expect(doc.recrawl).toBe('weekly');
    expect(doc.next_crawl_at).not.toBeNull();
    await page.screenshot({ path: path.join(DOC_IMAGES, 'dashboard-crawl-pages.png'), fullPage: true });
    await checkAccessible('crawl-pages');
    // The page is back; Retry re-crawls and it is read.
    site.overrides.delete('/pcre2-config.html');
    await gone.getByRole('button', { name: /^Retry / }).click();
    await page.getByText(/Retry: the site is being crawled again/).waitFor();
    await page.waitForFunction(
      (url) => document.querySelector(`tr[data-page="${url}"] .badge.ready`) !== null,
      `${site.origin}/pcre2-config.html`,
      { timeout: 60_000, polling: 500 },
    ).catch(async () => {
      // The view re-reads on document changes; a reload shows the settled state.
      await page.reload();
      await page.locator(`tr[data-page="${site.origin}/pcre2-config.html"] .badge.ready`).waitFor({ timeout: 30_000 });
    });
  }, 180_000);

  it('the Sandbox shows what the answer path decided: the refusal and why, the same scores as citations, a history and top_k compared', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Sandbox' }).click();
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1' && document.activeElement.textContent === 'Sandbox');
    await page.getByLabel('Knowledge base').selectOption(kbId);
    await page.getByRole('textbox', { name: 'Question' }).fill('What is the capital of France?');
    await page.getByRole('button', { name: 'Ask' }).click();
    const verdict = page.getByTestId('verdict');
    await verdict.waitFor({ timeout: 30_000 });
    expect(await verdict.textContent()).toMatch(/^Nothing relevant enough/);
    expect(await page.locator('.msg.assistant').last().textContent()).toMatch(/couldn't find|could not find|not find/i);

    await page.getByRole('textbox', { name: 'Question' }).fill('How long does charging the Zephyr-9 battery take?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.locator('.msg.assistant:not([data-streaming])').nth(1).waitFor({ timeout: 30_000 });
    await page.getByTestId('verdict').filter({ hasText: 'Relevant passages found' }).waitFor({ timeout: 30_000 });
    // Same chunk, same score: the panel's passage [n] and the answer's citation [n].
    const cite = page.locator('.msg.assistant').last().locator('button.cite').first();
    await cite.click();
    const source = page.getByTestId('citation');
    const marker = /Source (\d+)/.exec((await source.textContent())!)![1];
    const citeScore = /score (0\.\d{3})/.exec((await source.textContent())!)![1];
    const passage = page.getByRole('list', { name: 'Retrieved passages' }).locator('li', { hasText: `[${marker}]` });
    expect(/score (0\.\d{3})/.exec((await passage.textContent())!)![1]).toBe(citeScore);
    // Recent questions, newest first; they are still there after the page is loaded again.
    const history = page.getByRole('list', { name: 'Recently asked' }).locator('li');
    expect(await history.count()).toBe(2);
    expect(await history.nth(1).textContent()).toMatch(/capital of France.*declined/);
    expect(await history.nth(0).textContent()).toMatch(/charging.*answered/);
    await page.reload();
    await page.getByRole('heading', { name: 'Sandbox', level: 1 }).waitFor();
    await page.getByLabel('Knowledge base').selectOption(kbId);
    await page.waitForFunction(() => document.querySelectorAll('ol.history li').length === 2);
    expect(await history.nth(0).textContent()).toMatch(/charging.*answered/);
    // The refused question's decision, shown again from the history; the GraphQL retrieve agrees with it.
    await history.nth(1).getByRole('button').click();
    expect(await page.getByTestId('verdict').textContent()).toMatch(/^Nothing relevant enough/);
    const gate = (await graphqlClient(t.app, apiKey)(`query($k: ID!) { retrieve(kbId: $k, query: "What is the capital of France?") { confident reason } }`, { k: kbId })).body.data!.retrieve;
    expect(gate.confident).toBe(false);
    // top_k compared, each judged by the same gate.
    await history.nth(0).getByRole('button').click();
    await page.getByLabel('top_k A').fill('1');
    await page.getByLabel('top_k B').fill('6');
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.getByTestId('topk-6').waitFor();
    expect(await page.getByRole('list', { name: 'Passages at top_k 1' }).locator('li').count()).toBe(1);
    expect(await page.getByRole('list', { name: 'Passages at top_k 6' }).locator('li').count()).toBeGreaterThan(1);
    expect(await page.getByTestId('topk-1').getByTestId('verdict').textContent()).toMatch(/Relevant passages found|Nothing relevant enough/);
    await checkAccessible('sandbox-decision');
  }, 120_000);

  it('the Embed page warns when the KB\'s widget is off; a failed widget switch reverts and says why', async () => {
    const gql = graphqlClient(t.app, apiKey);
    await gql(`mutation($i: UpdateKnowledgeBaseInput!) { updateKnowledgeBase(input: $i) { id } }`, { i: { id: kbId, widgetEnabled: false } });
    await page.getByRole('navigation').getByRole('link', { name: 'Embed' }).click();
    await page.getByLabel('Knowledge base').selectOption(kbId);
    expect(await page.getByTestId('widget-off').textContent()).toMatch(/widget of Drone manuals is switched off/);
    await checkAccessible('embed-widget-off');

    // A second KB, deleted through the API while the Settings page shows it: its switch cannot save.
    const doomed = (await restClient(t.app, apiKey).post('/api/kbs', { name: 'Old brochures' })).body.kb.id as string;
    await page.getByRole('navigation').getByRole('link', { name: 'Settings' }).click();
    const sw = page.getByRole('switch', { name: 'Old brochures' });
    await sw.waitFor();
    expect(await sw.isChecked()).toBe(true);
    expect((await restClient(t.app, apiKey).delete(`/api/kbs/${doomed}`)).status).toBe(200);
    await sw.click();
    await page.getByRole('alert').filter({ hasText: /The widget of Old brochures is still on: .*not found/i }).waitFor();
    await checkAccessible('settings-switch-failed');
  }, 120_000);

  it('a failed KB delete keeps the dialog open with the reason; a successful one moves focus to the heading', async () => {
    const rest = restClient(t.app, apiKey);
    const spare = (await rest.post('/api/kbs', { name: 'Spare KB' })).body.kb.id as string;
    await page.getByRole('navigation').getByRole('link', { name: 'Knowledge Bases' }).click();
    await page.getByRole('button', { name: 'Delete Spare KB' }).click();
    // Deleted meanwhile through the API: the dashboard's delete fails.
    expect((await rest.delete(`/api/kbs/${spare}`)).status).toBe(200);
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Delete knowledge base' }).click();
    await dialog.getByRole('alert').waitFor();
    expect(await dialog.getByRole('alert').textContent()).toMatch(/not found/i);
    expect(await dialog.isVisible()).toBe(true);
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    const other = (await rest.post('/api/kbs', { name: 'Temporary KB' })).body.kb.id as string;
    await page.reload();
    await page.getByRole('button', { name: 'Delete Temporary KB' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete knowledge base' }).click();
    await page.getByRole('link', { name: 'Temporary KB' }).waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1');
    expect((await rest.get(`/api/kbs/${other}`)).status).toBe(404);
  });

  it('at 390 px every action is on screen: navigation, Delete/Re-ingest, Revoke; filenames wrap', async () => {
    await page.setViewportSize(PHONE);
    expect(await allWithinWidth('nav.main a')).toBe(true);
    expect(await page.locator('nav.main a').count()).toBeGreaterThanOrEqual(5);
    await gotoHash(`#/kbs/${kbId}`);
    await page.locator('tr[data-doc]').first().waitFor();
    expect(await allWithinWidth('tr[data-doc] button')).toBe(true);
    expect(await allWithinWidth('tr[data-doc] td.name a')).toBe(true);
    await checkAccessible('documents');
    await page.setViewportSize(PHONE);
    await gotoHash('#/settings');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByTestId('new-key').waitFor();
    expect(await allWithinWidth('tr[data-key] button')).toBe(true);
    await page.setViewportSize(WIDE);
    // After revoking, focus is on the API keys heading, not the next row's button.
    await page.locator('tr[data-key] button', { hasText: 'Revoke' }).first().click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await page.waitForFunction(() => document.activeElement?.textContent === 'API keys');
    expect(pageErrors).toEqual([]);
  }, 120_000);

  it('the Knowledge Bases list, Usage and the sign-in form pass axe too, in light and dark at 1440 and 390 px', async () => {
    await gotoHash('#/kbs');
    await page.getByRole('heading', { level: 1, name: 'Knowledge Bases' }).waitFor();
    await checkAccessible('kb-list');
    await gotoHash('#/usage');
    await page.getByRole('heading', { level: 1, name: 'Usage' }).waitFor();
    await checkAccessible('usage');
    // The sign-in form, as a signed-out visitor sees it (a context of its own, without the session).
    const signedIn = page;
    const signedOut = await browser.newContext({ viewport: WIDE, bypassCSP: true });
    try {
      page = await signedOut.newPage();
      await page.goto(`${served.url}/admin`);
      await page.getByLabel('API key').waitFor();
      await checkAccessible('sign-in');
    } finally {
      page = signedIn;
      await signedOut.close();
    }
  }, 120_000);
});
