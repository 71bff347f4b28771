/**
 * The embeddable widget in real Chromium: the API on one origin, customer pages on others (other
 * ports of 127.0.0.1), one script tag each. Screenshots go to test-artifacts/widget/.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { LanguageModelV2 } from '@ai-sdk/provider';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import type { AppDeps } from '../../src/context';
import { restClient, trpcClient } from '../helpers/api-client';
import { launchBrowser, serveApp, serveHostPages, type Served } from '../helpers/browser';
import { runQueuedJobs } from '../helpers/jobs';
import { testConfig } from '../helpers/test-app';
import { uploadFile } from '../helpers/upload';
import { createWidgetOrg, createWidgetTestApp, widgetClient, type WidgetOrg } from '../widget/widget-fixture';

const ARTIFACTS = path.resolve('test-artifacts/widget');
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

const BREEZE_MD = `# Breeze-2 kite

The Breeze-2 kite is made by Skyline Toys in Leeds. In steady wind it can fly for 3 hours.
`;

/** The offline answer model, slowed down a little per token so streaming is observable in the page. */
function withTokenDelay(model: LanguageModelV2, ms: number): LanguageModelV2 {
  return {
    specificationVersion: 'v2',
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate: (options) => model.doGenerate(options),
    async doStream(options) {
      const result = await model.doStream(options);
      const delayed = new TransformStream({
        async transform(part, controller) {
          if (part.type === 'text-delta') await new Promise((r) => setTimeout(r, ms));
          controller.enqueue(part);
        },
      });
      return { ...result, stream: result.stream.pipeThrough(delayed) };
    },
  };
}

let t: Awaited<ReturnType<typeof createWidgetTestApp>>;
let api: Served;
let limitedApi: Served;
let siteA: Awaited<ReturnType<typeof serveHostPages>>;
let siteB: Awaited<ReturnType<typeof serveHostPages>>;
let browser: Browser;
let acme: WidgetOrg;
let locked: WidgetOrg;
let voiceOrg: WidgetOrg;

type PageOpts = { api?: Served; org?: string; kb?: string | null; theme?: string; voice?: boolean; head?: string; body?: string; attrs?: string };

function hostHtml(o: PageOpts = {}) {
  const apiUrl = (o.api ?? api).url;
  const attrs =
    o.attrs ??
    [
      `data-org="${o.org ?? acme.slug}"`,
      o.kb === null ? '' : `data-kb="${o.kb ?? acme.kbId}"`,
      o.theme ? `data-theme="${o.theme}"` : '',
      o.voice ? 'data-voice="true"' : '',
    ].join(' ');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Northwind Aerial</title>
<style>body{font-family:Georgia,serif;margin:0;padding:32px 48px;background:#fafaf7;color:#222}header a{margin-right:16px}main{max-width:720px}</style>
${o.head ?? ''}</head><body>
<header><a href="#home" id="first-link">Home</a><a href="#products">Products</a><a href="#support">Support</a></header>
<main><h1>Northwind Aerial</h1><p id="host-text">Drones made in Tromsø. Our support assistant answers from the product manuals.</p>
<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.</p></main>
${o.body ?? ''}
<script src="${apiUrl}/embed/widget.js" ${attrs} defer></script>
</body></html>`;
}

const contexts: BrowserContext[] = [];
async function open(url: string, options: BrowserContextOptions = {}) {
  const context = await browser.newContext({ viewport: DESKTOP, ...options });
  contexts.push(context);
  const page = await context.newPage();
  const errors: string[] = [];
  const consoleErrors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  await page.goto(url);
  return { context, page, errors, consoleErrors };
}

const bubble = (page: Page) => page.locator('groundwork-chat .bubble');
const panel = (page: Page) => page.locator('groundwork-chat .panel');
const input = (page: Page) => page.locator('groundwork-chat .input');
const botMessages = (page: Page) => page.locator('groundwork-chat .msg.bot:not(.typing)');

/** What has focus, looking through our shadow root. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const a = document.activeElement;
    if (a?.tagName === 'GROUNDWORK-CHAT') {
      const inner = a.shadowRoot!.activeElement as HTMLElement | null;
      return inner ? `widget:${inner.tagName.toLowerCase()}.${inner.className}` : 'widget:(none)';
    }
    return a ? `${a.tagName.toLowerCase()}#${a.id}` : 'none';
  });

/** Sends a question and waits until the answer is complete; returns the answer text. */
async function ask(page: Page, question: string) {
  const before = await botMessages(page).count();
  await input(page).fill(question);
  await input(page).press('Enter'); // the send button is aria-disabled="true" from here until the answer is done
  await page.locator('groundwork-chat .send[aria-disabled="false"]').waitFor({ timeout: 20_000 });
  expect(await botMessages(page).count()).toBe(before + 1);
  return (await botMessages(page).last().locator('.text').textContent()) ?? '';
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  // Browser requests all come from 127.0.0.1: keep the per-IP budget out of the way (tested below).
  // A Realtime provider configured (never reached here: voice itself is tested in voice.test.ts), so voice can be available.
  t = await createWidgetTestApp({
    env: { WIDGET_RATE_LIMIT_PER_MINUTE: '100000', OPENAI_REALTIME_API_KEY: 'sk-test', OPENAI_REALTIME_URL: 'ws://127.0.0.1:9/v1/realtime' },
  });
  acme = await createWidgetOrg(t);
  await uploadFile(t.app, acme.apiKey, acme.kbId, { name: 'breeze.md', bytes: BREEZE_MD });
  await runQueuedJobs(t);
  locked = await createWidgetOrg(t, { kbName: 'Locked KB' });
  voiceOrg = await createWidgetOrg(t, { plan: 'starter', kbName: 'Voice KB' });
  await trpcClient(t.app, voiceOrg.apiKey).mutation('org.updateSettings', { voice_enabled: true });

  const deps: AppDeps = { ...t.deps, models: { ...t.deps.models, answerModel: withTokenDelay(t.deps.models.answerModel, 15) } };
  api = await serveApp(createApp(deps));
  limitedApi = await serveApp(
    createApp({ ...deps, config: testConfig({ WIDGET_RATE_LIMIT_PER_MINUTE: '100000', WIDGET_SESSION_RATE_LIMIT_PER_MINUTE: '2' }) }),
  );
  siteA = await serveHostPages();
  siteB = await serveHostPages();
  await trpcClient(t.app, locked.apiKey).mutation('org.updateSettings', { allowed_origins: [siteA.origin] });
  browser = await launchBrowser();
});

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
  await browser?.close();
  await Promise.all([api?.close(), limitedApi?.close(), siteA?.close(), siteB?.close()]);
  await t?.close();
});

describe('widget in Chromium', () => {
  it('shows a labelled bubble in the bottom-right corner, without calling the API before it is opened', async () => {
    const url = siteA.page('/plain', hostHtml());
    const context = await browser.newContext({ viewport: DESKTOP });
    contexts.push(context);
    const page = await context.newPage();
    const apiCalls: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/')) apiCalls.push(r.url());
    });
    await page.goto(url);
    await bubble(page).waitFor({ state: 'visible' });
    expect(await bubble(page).getAttribute('aria-label')).toBe('Open chat');
    expect(await bubble(page).getAttribute('aria-expanded')).toBe('false');
    const box = (await bubble(page).boundingBox())!;
    expect(box.x + box.width).toBeCloseTo(DESKTOP.width - 20, 0);
    expect(box.y + box.height).toBeCloseTo(DESKTOP.height - 20, 0);
    expect(box.width).toBe(56);
    // Above the page: the top layer (popover) where supported.
    expect(await page.evaluate(() => document.querySelector('groundwork-chat')!.shadowRoot!.querySelector('.root')!.matches(':popover-open'))).toBe(true);
    expect(await page.locator('#host-text').textContent()).toMatch(/Drones made in Tromsø/);
    await page.waitForTimeout(300);
    expect(apiCalls).toEqual([]);
  });

  describe('a conversation', () => {
    let page: Page;
    let errors: string[];

    it('streams an answer token by token with a numbered source, then follows up from memory', async () => {
      ({ page, errors } = await open(siteA.page('/conversation', hostHtml())));
      await bubble(page).click();
      await panel(page).waitFor({ state: 'visible' });
      expect(await bubble(page).getAttribute('aria-expanded')).toBe('true');
      expect(await focused(page)).toBe('widget:textarea.input');
      await page.locator('groundwork-chat .msg.greeting').waitFor();
      expect(await page.locator('groundwork-chat #gw-title').textContent()).toBe('Zephyr support');

      // Record every state of the answer text while it streams.
      await page.evaluate(() => {
        const root = document.querySelector('groundwork-chat')!.shadowRoot!;
        const seen: string[] = ((window as any).__answerStates = []);
        new MutationObserver(() => {
          if (root.querySelector('.typing')) (window as any).__sawTyping = true;
          const bots = root.querySelectorAll('.msg.bot:not(.typing):not(.greeting) .text');
          const text = bots[bots.length - 1]?.textContent ?? '';
          if (text && seen[seen.length - 1] !== text) seen.push(text);
        }).observe(root, { subtree: true, childList: true, characterData: true });
      });
      const first = await ask(page, 'Who makes the Zephyr-9?');
      expect(first).toMatch(/Northwind Aerial/);
      expect(await page.evaluate(() => (window as any).__sawTyping)).toBe(true);
      expect(await page.locator('groundwork-chat .typing').count()).toBe(0);
      const states: string[] = await page.evaluate(() => (window as any).__answerStates);
      expect(states.length).toBeGreaterThan(4);
      for (let i = 1; i < states.length - 1; i++) expect(states[i]!.startsWith(states[i - 1]!)).toBe(true);

      const sources = botMessages(page).last().locator('.sources li');
      expect(await sources.count()).toBeGreaterThan(0);
      expect(await sources.first().textContent()).toMatch(/^1\.\s*zephyr\.md/);
      // A reader sees where in the file: the section heading (and the page, for PDFs) after its name.
      expect(await sources.first().locator('.meta').textContent()).toMatch(/Manufacturer/);
      expect(await botMessages(page).last().locator('.ref').first().textContent()).toBe('1');
      expect(await page.locator('groundwork-chat [role="status"]').textContent()).toMatch(/^Assistant: .*Northwind Aerial/);
      expect(await page.locator('groundwork-chat .msg.user').allTextContents()).toEqual(['Who makes the Zephyr-9?']);

      // "it" is only understood with the conversation's memory (the KB also has a kite that flies):
      // the server rewrites the follow-up with the history before retrieving.
      const response = page.waitForResponse((r) => r.url().endsWith('/api/widget/chat'));
      const followUp = await ask(page, 'How long can it fly?');
      const sse = await (await response).text();
      const condensed = JSON.parse(/event: session\ndata: (.*)\n/.exec(sse)![1]!).query;
      expect(condensed).toMatch(/Zephyr-9/);
      expect(followUp).toMatch(/^The Zephyr-9 can fly for 47 minutes/);
      expect(errors).toEqual([]);
    });

    it('keeps the conversation across a reload (session id in localStorage, per org and KB)', async () => {
      const stored = await page.evaluate((key) => localStorage.getItem(key), `groundwork:${acme.slug}:${acme.kbId}:session`);
      expect(stored).toMatch(/^sess_/);
      await page.reload();
      await bubble(page).click();
      await expect.poll(() => page.locator('groundwork-chat .msg.user').count()).toBe(2);
      expect(await page.locator('groundwork-chat .msg.user').allTextContents()).toEqual(['Who makes the Zephyr-9?', 'How long can it fly?']);
      expect(await botMessages(page).last().textContent()).toMatch(/47 minutes/);
      expect(await botMessages(page).last().locator('.sources li').count()).toBeGreaterThan(0);
      expect(await page.locator('groundwork-chat .msg.greeting').count()).toBe(0);

      const third = await ask(page, 'And how long does charging its battery take?');
      expect(third).toMatch(/90 minutes/);
      expect(await page.evaluate((key) => localStorage.getItem(key), `groundwork:${acme.slug}:${acme.kbId}:session`)).toBe(stored);
    });

    it('starts a new conversation on request, and offers a small window API', async () => {
      const key = `groundwork:${acme.slug}:${acme.kbId}:session`;
      const previous = await page.evaluate((k) => localStorage.getItem(k), key);
      await page.locator('groundwork-chat [aria-label="New conversation"]').click();
      expect(await page.locator('groundwork-chat .msg.user').count()).toBe(0);
      await page.locator('groundwork-chat .msg.greeting').waitFor();
      expect(await page.evaluate((key) => localStorage.getItem(key), `groundwork:${acme.slug}:${acme.kbId}:session`)).toBeNull();

      await page.evaluate(() => window.Groundwork!.close());
      await panel(page).waitFor({ state: 'hidden' });
      expect(await page.evaluate(() => window.Groundwork!.isOpen())).toBe(false);
      await page.evaluate(() => window.Groundwork!.open());
      await panel(page).waitFor({ state: 'visible' });
      await ask(page, 'How long can the Zephyr-9 fly?');
      const fresh = await page.evaluate((k) => localStorage.getItem(k), key);
      expect(fresh).toMatch(/^sess_/);
      expect(fresh).not.toBe(previous);
      expect(await page.locator('groundwork-chat .msg.user').count()).toBe(1);
      expect(errors).toEqual([]);
    });
  });

  it('applies the dark theme, and auto follows prefers-color-scheme', async () => {
    const luminance = (rgb: string) => {
      const [r, g, b] = rgb.match(/\d+/g)!.map(Number) as [number, number, number];
      return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
    };
    const panelBackground = async (page: Page) => {
      await bubble(page).click();
      await panel(page).waitFor({ state: 'visible' });
      return panel(page).evaluate((el) => getComputedStyle(el).backgroundColor);
    };
    const dark = await open(siteA.page('/dark', hostHtml({ theme: 'dark' })));
    expect(await dark.page.locator('groundwork-chat .root').getAttribute('data-theme')).toBe('dark');
    expect(luminance(await panelBackground(dark.page))).toBeLessThan(0.15);
    expect(luminance(await dark.page.locator('groundwork-chat .input').evaluate((el) => getComputedStyle(el).color))).toBeGreaterThan(0.8);

    const autoDark = await open(siteA.page('/auto', hostHtml({ theme: 'auto' })), { colorScheme: 'dark' });
    expect(await autoDark.page.locator('groundwork-chat .root').getAttribute('data-theme')).toBe('dark');
    const autoLight = await open(siteA.page('/auto', hostHtml({ theme: 'auto' })), { colorScheme: 'light' });
    expect(await autoLight.page.locator('groundwork-chat .root').getAttribute('data-theme')).toBe('light');
    expect(luminance(await panelBackground(autoLight.page))).toBeGreaterThan(0.95);
    await autoLight.page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => autoLight.page.locator('groundwork-chat .root').getAttribute('data-theme')).toBe('dark');

    const unknown = await open(siteA.page('/purple', hostHtml({ theme: 'purple' })));
    expect(await unknown.page.locator('groundwork-chat .root').getAttribute('data-theme')).toBe('light');
  });

  it('works with the keyboard alone: focus in, ask, reach the sources, Escape, focus back', async () => {
    const { page, errors } = await open(siteA.page('/keyboard', hostHtml()));
    await bubble(page).waitFor();
    let reached = false;
    for (let i = 0; i < 10 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = (await focused(page)) === 'widget:button.bubble';
    }
    expect(reached).toBe(true);
    await page.keyboard.press('Enter');
    await panel(page).waitFor({ state: 'visible' });
    expect(await focused(page)).toBe('widget:textarea.input');
    await page.keyboard.type('How long can the Zephyr-9 fly on one charge?');
    await page.keyboard.press('Enter');
    await page.locator('groundwork-chat .send[aria-disabled="false"]').waitFor({ timeout: 20_000 });
    expect(await botMessages(page).last().textContent()).toMatch(/47 minutes/);

    // Shift+Tab from the question field reaches the answer's rating buttons, then the conversation, a
    // focusable region that scrolls with the keys.
    const passed: string[] = [];
    for (let i = 0; i < 10 && (await focused(page)) !== 'widget:div.log'; i++) {
      await page.keyboard.press('Shift+Tab');
      passed.push(await focused(page));
    }
    expect(passed[0]).toBe('widget:button.rate-btn');
    expect(await focused(page)).toBe('widget:div.log');
    expect(await page.evaluate(() => document.querySelector('groundwork-chat')!.shadowRoot!.activeElement!.getAttribute('aria-label'))).toBe('Conversation');

    await page.keyboard.press('Escape');
    await panel(page).waitFor({ state: 'hidden' });
    expect(await focused(page)).toBe('widget:button.bubble');
    expect(await bubble(page).getAttribute('aria-label')).toBe('Open chat');
    await page.keyboard.press('Space');
    await panel(page).waitFor({ state: 'visible' });
    expect(await focused(page)).toBe('widget:textarea.input');
    // Opened from a page control through the API, focus goes back to that control.
    await page.keyboard.press('Escape');
    await page.focus('#first-link');
    await page.evaluate(() => window.Groundwork!.open());
    await panel(page).waitFor({ state: 'visible' });
    await page.keyboard.press('Escape');
    expect(await focused(page)).toBe('a#first-link');
    expect(errors).toEqual([]);
  });

  it('survives a hostile host page: * { all: unset !important }, a huge root font size and max-z-index overlays', async () => {
    const head = `<style>* { all: unset !important; } html { font-size: 40px !important; } div, button, section { display: none !important; }</style>`;
    const overlay =
      'position:fixed!important;inset:0!important;z-index:2147483647!important;background:rgba(220,38,38,.12)!important;display:block!important';
    const body = `<div style="${overlay}" id="overlay-before"></div>
<script>document.addEventListener('DOMContentLoaded', () => setTimeout(() => {
  const d = document.createElement('div'); d.id = 'overlay-after'; d.setAttribute('style', '${overlay}'); document.body.appendChild(d);
}, 50));</script>`;
    const { page, errors } = await open(siteA.page('/hostile', hostHtml({ head, body })));
    await bubble(page).waitFor({ state: 'visible' });
    await page.waitForFunction(() => document.getElementById('overlay-after'));
    const box = (await bubble(page).boundingBox())!;
    expect(box.width).toBe(56);
    expect(box.x + box.width).toBeCloseTo(DESKTOP.width - 20, 0);
    expect(box.y + box.height).toBeCloseTo(DESKTOP.height - 20, 0);
    // What is on top at the bubble's centre is the widget, not the overlays.
    expect(await page.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.tagName, { x: box.x + 28, y: box.y + 28 })).toBe('GROUNDWORK-CHAT');
    await page.screenshot({ path: path.join(ARTIFACTS, 'hostile-page-closed.png') });

    await bubble(page).click(); // Playwright refuses to click an element something else covers
    await panel(page).waitFor({ state: 'visible' });
    expect(await panel(page).evaluate((el) => getComputedStyle(el).fontSize)).toBe('14px');
    expect(await panel(page).evaluate((el) => getComputedStyle(el).width)).toBe('380px');
    const answer = await ask(page, 'How long can the Zephyr-9 fly on one charge?');
    expect(answer).toMatch(/47 minutes/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'hostile-page-open.png') });
    expect(errors).toEqual([]);
  });

  it('works on a page with a strict Content-Security-Policy and Trusted Types (no inline styles, no HTML strings)', async () => {
    const csp = `default-src 'none'; script-src ${api.origin}; connect-src ${api.origin}; style-src 'none'; img-src 'none'; require-trusted-types-for 'script'`;
    const context = await browser.newContext({ viewport: DESKTOP });
    contexts.push(context);
    await context.addInitScript(() => {
      (window as any).__violations = [];
      document.addEventListener('securitypolicyviolation', (e) => (window as any).__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(siteA.page('/csp', hostHtml({ head: `<meta http-equiv="Content-Security-Policy" content="${csp}">` })));
    await bubble(page).waitFor({ state: 'visible' });
    expect((await bubble(page).boundingBox())!.width).toBe(56);
    await bubble(page).click();
    await panel(page).waitFor({ state: 'visible' });
    expect(await panel(page).evaluate((el) => getComputedStyle(el).borderRadius)).toBe('18px');
    expect(await ask(page, 'How long can the Zephyr-9 fly on one charge?')).toMatch(/47 minutes/);
    expect(await page.evaluate(() => (window as any).__violations)).toEqual([]);
    expect(errors).toEqual([]);
    // The policy is really enforced: the page itself may not assign HTML strings.
    expect(
      await page.evaluate(() => {
        try {
          document.createElement('div').innerHTML = '<b>x</b>';
          return 'allowed';
        } catch {
          return 'blocked';
        }
      }),
    ).toBe('blocked');
  });

  it('shows the refusal on a website the organisation has not allowed, and works on the allowed one', async () => {
    const refused = await open(siteB.page('/locked', hostHtml({ org: locked.slug, kb: locked.kbId })));
    await bubble(refused.page).click();
    const reason = refused.page.locator('groundwork-chat .refusal');
    await reason.waitFor({ timeout: 10_000 });
    expect(await reason.textContent()).toMatch(/Chat unavailable/);
    expect(await reason.textContent()).toContain(`This website (${siteB.origin}) is not allowed to use this assistant`);
    expect(await refused.page.locator('groundwork-chat .composer').isHidden()).toBe(true);
    expect(await refused.page.locator('groundwork-chat [aria-label="New conversation"]').isHidden()).toBe(true);
    expect(await focused(refused.page)).toBe('widget:button.icon-btn');
    await refused.page.screenshot({ path: path.join(ARTIFACTS, 'refused-origin.png') });

    const allowed = await open(siteA.page('/locked', hostHtml({ org: locked.slug, kb: locked.kbId })));
    await bubble(allowed.page).click();
    await allowed.page.locator('groundwork-chat .msg.greeting').waitFor();
    expect(await allowed.page.locator('groundwork-chat .refusal').count()).toBe(0);
  });

  it('says so when the knowledge base does not exist', async () => {
    const { page } = await open(siteA.page('/unknown-kb', hostHtml({ kb: 'kb_doesnotexist000' })));
    await bubble(page).click();
    const reason = page.locator('groundwork-chat .refusal');
    await reason.waitFor({ timeout: 10_000 });
    expect(await reason.textContent()).toMatch(/This assistant isn't available/);
  });

  it('shows the rate-limit message and gives the question back', async () => {
    const { page } = await open(siteA.page('/limited', hostHtml({ api: limitedApi })));
    await bubble(page).click();
    await page.locator('groundwork-chat .msg.greeting').waitFor();
    expect(await ask(page, 'Who makes the Zephyr-9?')).toMatch(/Northwind/);
    expect(await ask(page, 'How long can it fly?')).toMatch(/47 minutes/);
    await input(page).fill('How long does charging take?');
    await input(page).press('Enter');
    const notice = page.locator('groundwork-chat .notice');
    await notice.waitFor({ state: 'visible', timeout: 10_000 });
    expect(await notice.textContent()).toMatch(/You're sending messages too quickly\. Please wait \d+ seconds? and try again\./);
    expect(await notice.getAttribute('role')).toBe('alert');
    expect(await input(page).inputValue()).toBe('How long does charging take?');
    await page.screenshot({ path: path.join(ARTIFACTS, 'rate-limited.png') });
    expect(await page.locator('groundwork-chat .msg.user').count()).toBe(2);
  });

  it('shows the microphone only when data-voice is set and voice is available', async () => {
    const withVoice = await open(siteA.page('/voice', hostHtml({ org: voiceOrg.slug, kb: voiceOrg.kbId, voice: true })));
    await bubble(withVoice.page).click();
    await withVoice.page.locator('groundwork-chat .msg.greeting').waitFor();
    const mic = withVoice.page.locator('groundwork-chat .mic');
    expect(await mic.isVisible()).toBe(true);
    expect(await mic.getAttribute('aria-label')).toBe('Talk to the assistant');
    expect(await mic.getAttribute('aria-pressed')).toBe('false');
    // The voice code itself is loaded on the first microphone click only (test/e2e/voice.test.ts).
    expect(await withVoice.page.evaluate(() => performance.getEntriesByType('resource').filter((e) => /widget-(voice|audio)\.js/.test(e.name)).length)).toBe(0);

    for (const [name, html] of [
      ['/voice-not-requested', hostHtml({ org: voiceOrg.slug, kb: voiceOrg.kbId })],
      ['/voice-not-available', hostHtml({ voice: true })], // pro plan, voice not switched on
    ] as const) {
      const { page } = await open(siteA.page(name, html));
      await bubble(page).click();
      await page.locator('groundwork-chat .msg.greeting').waitFor();
      expect(await page.locator('groundwork-chat .mic').isVisible(), name).toBe(false);
    }
  });

  it('renders nothing and logs one clear console error for missing or invalid attributes', async () => {
    for (const [name, attrs, message] of [
      ['/no-kb', `data-org="${'acme'}"`, /data-kb is missing/],
      ['/bad-org', `data-org="Not A Slug!" data-kb="kb_abc"`, /data-org="Not A Slug!" is not an organisation slug/],
      ['/nothing', '', /data-org is missing.*data-kb is missing/],
    ] as const) {
      const { page, errors, consoleErrors } = await open(siteA.page(name, hostHtml({ attrs })));
      await page.waitForLoadState('load');
      await page.waitForTimeout(100);
      expect(await page.locator('groundwork-chat').count(), name).toBe(0);
      expect(await page.evaluate(() => typeof window.Groundwork)).toBe('undefined');
      const ours = consoleErrors.filter((m) => m.includes('Groundwork'));
      expect(ours, name).toHaveLength(1);
      expect(ours[0], name).toMatch(/^\[Groundwork\] The chat widget is not shown: /);
      expect(ours[0], name).toMatch(message);
      expect(errors, name).toEqual([]);
      expect(await page.locator('#host-text').isVisible()).toBe(true);
    }
  });

  it('saves screenshots: light and dark, closed and open, desktop and phone', async () => {
    // A stored conversation to restore, so the open panel shows an answer with its sources.
    const w = widgetClient(t.app, siteA.origin);
    const token = await w.token(acme.slug, acme.kbId);
    const first = await w.chat(token, { message: 'Who makes the Zephyr-9?' });
    const sessionId = first.events.at(-1)!.data.session_id as string;
    await w.chat(token, { message: 'How long can it fly on one charge?', session_id: sessionId });

    for (const theme of ['light', 'dark'] as const) {
      for (const [size, viewport] of [
        ['desktop', DESKTOP],
        ['phone', PHONE],
      ] as const) {
        const context = await browser.newContext({ viewport, ...(size === 'phone' ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}) });
        contexts.push(context);
        await context.addInitScript(
          ([key, id]) => localStorage.setItem(key!, id!),
          [`groundwork:${acme.slug}:${acme.kbId}:session`, sessionId],
        );
        const page = await context.newPage();
        await page.goto(siteA.page(`/shot-${theme}`, hostHtml({ theme })));
        await bubble(page).waitFor({ state: 'visible' });
        await page.screenshot({ path: path.join(ARTIFACTS, `${theme}-closed-${size}.png`) });
        await bubble(page).click();
        await expect.poll(() => page.locator('groundwork-chat .msg.bot .sources').count(), { timeout: 10_000 }).toBe(2); // history load, on a busy machine
        await page.waitForTimeout(250); // let the open animation finish
        if (size === 'phone') {
          const box = (await panel(page).boundingBox())!;
          expect(box).toEqual({ x: 0, y: 0, width: PHONE.width, height: PHONE.height });
        }
        await page.screenshot({ path: path.join(ARTIFACTS, `${theme}-open-${size}.png`) });
      }
    }
  });
});

describe('public endpoints from a real browser origin', () => {
  it('the keyed API stays closed to pages: no key, no documents', async () => {
    const { page } = await open(siteA.page('/probe', hostHtml()));
    const result = await page.evaluate(async ({ apiUrl, kb }) => {
      const r = await fetch(`${apiUrl}/api/kbs/${kb}/documents`).catch((e) => ({ status: String(e) }));
      return (r as Response).status ?? r;
    }, { apiUrl: api.url, kb: acme.kbId });
    // Either the browser blocks reading it (no CORS on the keyed API) or it is a 401.
    expect([401, 'TypeError: Failed to fetch']).toContain(result);
    expect((await restClient(t.app).get(`/api/kbs/${acme.kbId}/documents`)).status).toBe(401);
  });
});
