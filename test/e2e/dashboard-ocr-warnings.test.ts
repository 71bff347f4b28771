/**
 * A page of OCR garbage is not shown as plainly "ready" (issue 44), in Chromium: the administrator
 * uploads two scanned PDFs through the dashboard's file chooser, one whose second page is noise the
 * local OCR cannot read and one clean scan. Both are read by the real OCR (tesseract.js) in the real
 * ingest jobs; the list shows the first as "Ready · check OCR" with the reason on the badge, the
 * clean one as plain Ready, and the document's own page shows the same badge. axe checks the list
 * in light and dark at 1440 and 390 px.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopOcr } from '../../src/ingest/ocr';
import { restClient } from '../helpers/api-client';
import { launchBrowser, serveApp, type Served } from '../helpers/browser';
import { createOrgWithKey } from '../helpers/factories';
import { runQueuedJobs } from '../helpers/jobs';
import { imagePdf, noiseJpeg, scanJpeg } from '../helpers/scan-pdf';
import { createTestApp, type TestApp } from '../helpers/test-app';

const ARTIFACTS = path.resolve('test-artifacts/dashboard');
const WIDE = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };
const AXE = readFileSync(path.resolve(import.meta.dirname, '../../node_modules/axe-core/axe.min.js'), 'utf8');
/** OCR of a page in up to four orientations on a shared, loaded machine: generous, not a speed claim. */
const OCR_WAIT_MS = 240_000;

let t: TestApp;
let served: Served;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let apiKey: string;
let kbId: string;
const pageErrors: string[] = [];
let pumping = true;
let pump: Promise<void> = Promise.resolve();

async function axeSerious(): Promise<string[]> {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const r = await (window as unknown as { axe: { run: (o: unknown) => Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }).axe.run({
      resultTypes: ['violations'],
    });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
  });
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  t = await createTestApp({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
  apiKey = (await createOrgWithKey(t.deps, { plan: 'pro', name: 'Riverside Depot' })).api_key;
  kbId = (await restClient(t.app, apiKey).post('/api/kbs', { name: 'Depot scans' })).body.kb.id;
  served = await serveApp(t.app);
  // The ingest jobs the uploads queue, run as the worker would, until the test ends.
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
  await served?.close();
  await stopOcr();
  await t?.close();
});

describe('OCR warnings in the dashboard, in Chromium', () => {
  it('a scan with an unreadable page shows "Ready · check OCR" with the reason; a clean scan shows plain Ready', async () => {
    await page.evaluate((h) => (location.hash = h), `#/kbs/${kbId}`);
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'choose files' }).click();
    await (await chooser).setFiles([
      { name: 'depot-rules-scan.pdf', mimeType: 'application/pdf', buffer: imagePdf([scanJpeg(0), noiseJpeg()]) },
      { name: 'depot-rules-clean.pdf', mimeType: 'application/pdf', buffer: imagePdf([scanJpeg(0)]) },
    ]);

    const doubtful = page.locator('tr[data-doc="depot-rules-scan.pdf"] [data-label="Status"] .badge');
    const clean = page.locator('tr[data-doc="depot-rules-clean.pdf"] [data-label="Status"] .badge');
    await page.locator('tr[data-doc="depot-rules-scan.pdf"] .badge[data-warnings]').waitFor({ timeout: OCR_WAIT_MS });
    await page.locator('tr[data-doc="depot-rules-clean.pdf"] .badge.ready').waitFor({ timeout: OCR_WAIT_MS });

    // Not the green badge: the warning one, the count of warnings and their messages on it.
    expect((await doubtful.textContent())?.trim()).toMatch(/^Ready · check OCR · \d+ chunks?$/);
    expect(await doubtful.getAttribute('class')).not.toMatch(/\bready\b/);
    expect(await doubtful.getAttribute('data-warnings')).toBe('1');
    expect(await doubtful.getAttribute('title')).toMatch(/OCR could not read page 2; they are left out of the index/);
    // The clean scan was OCR'd too, and is sure: plain Ready, no reason to check.
    expect((await clean.textContent())?.trim()).toMatch(/^Ready · \d+ chunks?$/);
    expect(await clean.getAttribute('title')).toBeNull();
    expect(await clean.getAttribute('data-warnings')).toBeNull();

    // What the badges stand for is what the service recorded.
    const rest = restClient(t.app, apiKey);
    const docs = (await rest.get(`/api/kbs/${kbId}/documents`)).body.documents as Array<{ filename: string; status: string; ocr_pages: number[]; warnings: unknown[] }>;
    const byName = Object.fromEntries(docs.map((d) => [d.filename, d]));
    expect(byName['depot-rules-scan.pdf']).toMatchObject({ status: 'ready', ocr_pages: [1], warnings: [{ code: 'ocr_unreadable', pages: [2] }] });
    expect(byName['depot-rules-clean.pdf']).toMatchObject({ status: 'ready', ocr_pages: [1], warnings: [] });

    // The document's own page carries the same badge.
    await page.locator('tr[data-doc="depot-rules-scan.pdf"]').getByRole('link', { name: 'depot-rules-scan.pdf' }).click();
    await page.getByRole('heading', { name: 'depot-rules-scan.pdf' }).waitFor();
    const detail = page.locator('.badge[data-warnings]');
    await detail.waitFor();
    expect((await detail.textContent())?.trim()).toMatch(/^Ready · check OCR/);
    expect(await detail.getAttribute('title')).toMatch(/could not read page 2/);
    expect(pageErrors).toEqual([]);
  }, OCR_WAIT_MS + 60_000);

  it('the documents list with both badges passes axe in light and dark at 1440 and 390 px', async () => {
    await page.evaluate((h) => (location.hash = h), `#/kbs/${kbId}`);
    await page.locator('tr[data-doc="depot-rules-scan.pdf"] .badge[data-warnings]').waitFor();
    await page.locator('tr[data-doc="depot-rules-clean.pdf"] .badge.ready').waitFor();
    const found: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [label, size] of [['wide', WIDE], ['phone', PHONE]] as const) {
        await page.setViewportSize(size);
        await page.waitForTimeout(50);
        await page.screenshot({ path: path.join(ARTIFACTS, `ocr-warnings-${scheme}-${label}.png`), fullPage: true });
        for (const v of await axeSerious()) found.push(`${scheme} ${label}: ${v}`);
        if (label === 'phone') expect(await page.evaluate(() => document.documentElement.scrollWidth), `${scheme} phone width`).toBeLessThanOrEqual(PHONE.width);
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize(WIDE);
    expect(found).toEqual([]);
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
