/**
 * Widget cost on a customer's page, measured in Chromium: bundle sizes (raw, gzip, brotli; as
 * served) and the time from DOMContentLoaded to the bubble being on screen, cold and warm cache,
 * unthrottled and on a slow connection; plus the time from click to panel on screen.
 *
 *   npx tsx bench/widget.ts [--runs 15]
 *
 * "On screen" is the second animation frame after the bubble has a layout box (the first frame that
 * contains it has been presented). The page is served from another origin than the widget, as on
 * a real site. Results are also written to bench/results/widget.json (git-ignored).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Hono } from 'hono';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { createEmbedRoutes } from '../src/embed/embed-routes';
import { loadWidgetAssets } from '../src/embed/widget-assets';
import { launchBrowser, serveApp, serveHostPages } from '../test/helpers/browser';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 15;

const SLOW = { offline: false, latency: 150, downloadThroughput: (1.6 * 1024 * 1024) / 8, uploadThroughput: (750 * 1024) / 8 };

type Sample = { dclToBubble: number; navToBubble: number; scriptToBubble: number; clickToPanel?: number };

const PROBE = `<script>
(() => {
  const t = (window.__gw = {});
  new MutationObserver((_, obs) => {
    if (document.querySelector('groundwork-chat')) { t.inserted = performance.now(); obs.disconnect(); }
  }).observe(document.documentElement, { childList: true, subtree: true });
  document.addEventListener('DOMContentLoaded', () => {
    t.dcl = performance.now();
    const poll = () => {
      const b = document.querySelector('groundwork-chat')?.shadowRoot?.querySelector('.bubble');
      if (b && b.getBoundingClientRect().width > 0) requestAnimationFrame(() => requestAnimationFrame(() => (t.visible = performance.now())));
      else requestAnimationFrame(poll);
    };
    poll();
  });
})();
</script>`;

function hostPage(widgetOrigin: string) {
  const paragraphs = Array.from({ length: 30 }, (_, i) => `<p>Section ${i + 1}. Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.</p>`).join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Bench host</title>${PROBE}</head>
<body><h1>Northwind Aerial</h1>${paragraphs}
<script src="${widgetOrigin}/embed/widget.js" data-org="acme" data-kb="kb_bench000000" data-theme="light" defer></script></body></html>`;
}

async function measure(page: Page, url: string, reload: boolean, withClick: boolean): Promise<Sample> {
  if (reload) await page.reload();
  else await page.goto(url);
  await page.waitForFunction(() => (window as any).__gw?.visible !== undefined, null, { timeout: 30_000 });
  const t = await page.evaluate(() => {
    const g = (window as any).__gw;
    const script = performance.getEntriesByType('resource').find((e) => e.name.includes('/embed/widget.js')) as PerformanceResourceTiming;
    return { dcl: g.dcl, visible: g.visible, responseEnd: script?.responseEnd ?? NaN };
  });
  const sample: Sample = { dclToBubble: t.visible - t.dcl, navToBubble: t.visible, scriptToBubble: t.visible - t.responseEnd };
  if (withClick) {
    // A string, not a function: tsx's name helpers do not exist in the page.
    const start = (await page.evaluate(`new Promise((resolve) => {
      const root = document.querySelector('groundwork-chat').shadowRoot;
      const t0 = performance.now();
      root.querySelector('.bubble').click();
      const poll = () => {
        const panel = root.querySelector('.panel');
        if (panel && !panel.hidden && panel.getBoundingClientRect().width > 0) requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - t0)));
        else requestAnimationFrame(poll);
      };
      poll();
    })`)) as number;
    sample.clickToPanel = start;
  }
  return sample;
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  return { median: q(0.5), p95: q(0.95), min: s[0]!, max: s.at(-1)! };
};

async function scenario(browser: Browser, url: string, opts: { throttle: boolean; warm: boolean }) {
  const samples: Sample[] = [];
  let warmContext: BrowserContext | null = null;
  for (let i = 0; i < runs + 1; i++) {
    const context = opts.warm ? (warmContext ??= await browser.newContext()) : await browser.newContext();
    const page = context.pages()[0] ?? (await context.newPage());
    if (opts.throttle) {
      const cdp: CDPSession = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', SLOW);
    }
    const reload = opts.warm && i > 0;
    const sample = await measure(page, url, reload, !opts.warm);
    if (i > 0) samples.push(sample); // the first run warms up the browser process (and, when warm, the cache)
    if (!opts.warm) await context.close();
  }
  await warmContext?.close();
  const pick = (k: keyof Sample) => stats(samples.map((s) => s[k]).filter((v): v is number => typeof v === 'number'));
  return {
    dclToBubble: pick('dclToBubble'),
    navToBubble: pick('navToBubble'),
    scriptToBubble: pick('scriptToBubble'),
    ...(opts.warm ? {} : { clickToPanel: pick('clickToPanel') }),
  };
}

async function main() {
  const assets = await loadWidgetAssets({ env: 'test' });
  const size = (a: typeof assets.loader) => ({ raw: a.bodies.identity.byteLength, gzip: a.bodies.gzip.byteLength, brotli: a.bodies.br.byteLength });
  // widget-voice.js and widget-audio.js load only on the first microphone click (data-voice pages).
  const sizes = { 'widget.js': size(assets.loader), 'widget-panel.js': size(assets.panel), 'widget-voice.js': size(assets.voice), 'widget-audio.js': size(assets.audio) };

  const embed = new Hono();
  embed.route('/embed', createEmbedRoutes({ env: 'test' }));
  const widgetServer = await serveApp(embed);
  const site = await serveHostPages();
  const url = site.page('/', hostPage(widgetServer.origin));
  const browser = await launchBrowser();
  const results: Record<string, unknown> = { chromium: browser.version(), runs, sizes };
  try {
    for (const [name, opts] of [
      ['unthrottled, cold cache', { throttle: false, warm: false }],
      ['unthrottled, warm cache', { throttle: false, warm: true }],
      ['150 ms RTT + 1.6 Mbit/s, cold cache', { throttle: true, warm: false }],
    ] as const) {
      results[name] = await scenario(browser, url, opts);
    }
  } finally {
    await browser.close();
    await widgetServer.close();
    await site.close();
  }

  const kb = (n: number) => `${(n / 1024).toFixed(2)} KB`;
  console.log(`Chromium ${results.chromium}, ${runs} runs per scenario\n`);
  console.log('Bundle sizes (as served)');
  for (const [file, s] of Object.entries(sizes)) console.log(`  ${file.padEnd(16)} raw ${kb(s.raw).padStart(9)}   gzip ${kb(s.gzip).padStart(8)}   brotli ${kb(s.brotli).padStart(8)}`);
  console.log(`  budget: widget.js gzip <= 25 KB -> ${sizes['widget.js'].gzip <= 25 * 1024 ? 'OK' : 'OVER'}\n`);
  const ms = (x: { median: number; p95: number }) => `${x.median.toFixed(1)} ms (p95 ${x.p95.toFixed(1)})`;
  for (const [name, r] of Object.entries(results)) {
    if (typeof r !== 'object' || !r || !('dclToBubble' in r)) continue;
    const res = r as Record<string, { median: number; p95: number }>;
    console.log(name);
    console.log(`  DOMContentLoaded -> bubble on screen   ${ms(res.dclToBubble!)}`);
    console.log(`  navigation start -> bubble on screen   ${ms(res.navToBubble!)}`);
    console.log(`  widget.js received -> bubble on screen ${ms(res.scriptToBubble!)}`);
    if (res.clickToPanel) console.log(`  click -> panel on screen (loads panel) ${ms(res.clickToPanel)}`);
  }
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('./results/widget.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
