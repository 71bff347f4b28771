/**
 * Workspace -> Settings -> Voice in real Chromium (issue 24): the voice settings form saves the
 * organisation's settings and a knowledge base's override, a refused save says why next to the
 * field and keeps what was stored, and after the voice provider refused the server's key (a 403
 * from the fake Realtime server) the page shows the reason an administrator has to act on.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restClient } from '../helpers/api-client';
import { launchBrowser } from '../helpers/browser';
import { createVoiceOrg, createVoiceTestApp, VoiceClient, widgetToken } from '../realtime/voice-fixture';
import type { WidgetOrg } from '../widget/widget-fixture';

let v: Awaited<ReturnType<typeof createVoiceTestApp>>;
let org: WidgetOrg;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];
const AXE = readFileSync(path.resolve(import.meta.dirname, '../../node_modules/axe-core/axe.min.js'), 'utf8');
const WIDE = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

/** Serious or critical axe violations of the page, in light and dark, wide and phone; and nothing wider than the phone. */
async function axeProblems(): Promise<string[]> {
  const found: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [label, size] of [['wide', WIDE], ['phone', PHONE]] as const) {
      await page.setViewportSize(size);
      await page.evaluate(AXE);
      const violations = await page.evaluate(async () => {
        const r = await (window as unknown as { axe: { run: (o: unknown) => Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }).axe.run({ resultTypes: ['violations'] });
        return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
      });
      found.push(...violations.map((v) => `${scheme} ${label}: ${v}`));
      if (label === 'phone' && (await page.evaluate(() => document.documentElement.scrollWidth)) > PHONE.width) found.push(`${scheme} phone: wider than 390 px`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(WIDE);
  return found;
}

const stored = async (kbId?: string) => (await restClient(v.t.app, org.apiKey).get(kbId ? `/api/kbs/${kbId}/voice-settings` : '/api/settings/voice')).body.voice_settings;

async function openSettings() {
  await page.getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('heading', { name: 'Voice settings' }).waitFor();
  // The form is filled once the settings have loaded.
  await page.getByRole('button', { name: 'Save voice settings' }).and(page.locator(':enabled')).waitFor();
}

beforeAll(async () => {
  v = await createVoiceTestApp();
  org = await createVoiceOrg(v.t, { plan: 'pro' });
  browser = await launchBrowser();
  // axe is injected by evaluate; the page's CSP stays as served otherwise.
  context = await browser.newContext({ viewport: WIDE, bypassCSP: true });
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto(`${v.served.url}/admin`);
  await page.getByLabel('API key').fill(org.apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Knowledge Bases' }).waitFor();
}, 180_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await v?.close();
});

describe('voice settings form, in Chromium', () => {
  it("shows the defaults and saves the organisation's turn detection, eagerness, voice and instructions suffix", async () => {
    await openSettings();
    expect(await page.getByLabel('Turn detection').inputValue()).toBe('server_vad');
    expect(await page.getByLabel('Voice', { exact: true }).inputValue()).toBe('marin');
    // Eagerness only applies to semantic_vad.
    expect(await page.getByLabel('Eagerness').isDisabled()).toBe(true);
    await page.getByLabel('Turn detection').selectOption('semantic_vad');
    expect(await page.getByLabel('Eagerness').isDisabled()).toBe(false);
    await page.getByLabel('Eagerness').selectOption('high');
    await page.getByLabel('Voice', { exact: true }).selectOption('cedar');
    await page.getByRole('textbox', { name: 'Instructions suffix' }).fill('Keep answers under three sentences.');
    await page.getByRole('button', { name: 'Save voice settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved for the organisation.' }).waitFor();
    expect(await stored()).toMatchObject({ turn_detection: 'semantic_vad', eagerness: 'high', voice: 'cedar', instructions_suffix: 'Keep answers under three sentences.' });
  });

  it('a refused save shows the reason next to the field and keeps what was stored', async () => {
    await page.getByRole('textbox', { name: 'Instructions suffix' }).fill('x'.repeat(1001));
    expect(await page.locator('#voice-suffix-help').textContent()).toMatch(/1001 \/ 1000 characters/);
    await page.getByRole('button', { name: 'Save voice settings' }).click();
    const alert = page.locator('#voice-instructions_suffix-error').getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/Not saved: .*instructions_suffix.*at most 1000 characters/);
    expect(await page.getByRole('textbox', { name: 'Instructions suffix' }).getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('status').filter({ hasText: 'Saved' }).count()).toBe(0);
    expect((await stored()).instructions_suffix).toBe('Keep answers under three sentences.');
    expect(await axeProblems()).toEqual([]);
    // Fixed and saved again, the error goes.
    await page.getByRole('textbox', { name: 'Instructions suffix' }).fill('Keep answers short.');
    await page.getByRole('button', { name: 'Save voice settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved for the organisation.' }).waitFor();
    expect(await alert.count()).toBe(0);
  });

  it("overrides one field for a knowledge base; the others stay the organisation's", async () => {
    await page.getByLabel('Settings for').selectOption({ label: `${org.kbName} (override)` });
    const voice = page.getByLabel('Voice', { exact: true });
    await page.waitForFunction(() => (document.querySelector('#voice-voice') as HTMLSelectElement | null)?.value === '');
    expect(await voice.locator('option').first().textContent()).toBe('Organisation’s (cedar)');
    expect(await page.getByRole('textbox', { name: 'Instructions suffix' }).isDisabled()).toBe(true);
    await voice.selectOption('ash');
    await page.getByRole('button', { name: 'Save voice settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved for this knowledge base.' }).waitFor();
    expect(await stored(org.kbId)).toMatchObject({ voice: 'ash', turn_detection: 'semantic_vad', instructions_suffix: 'Keep answers short.', overridden: ['voice'] });
    expect((await stored()).voice).toBe('cedar');
  });

  it("shows why voice is unavailable after the voice provider refused the server's key", async () => {
    expect(await page.getByTestId('voice-unavailable').count()).toBe(0);
    v.fake.fault({ kind: 'forbidden' });
    try {
      const client = VoiceClient.connect(v.served.wsUrl, await widgetToken(v.t, org));
      expect(await client.type('error')).toMatchObject({ code: 'voice_unavailable' });
    } finally {
      v.fake.fault(null);
    }
    await page.reload();
    await openSettings();
    const reason = page.getByTestId('voice-unavailable');
    await reason.waitFor();
    expect(await reason.textContent()).toMatch(/Voice is unavailable: .*403/);
    expect(pageErrors).toEqual([]);
  });
});
