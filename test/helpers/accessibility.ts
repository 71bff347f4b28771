/** axe-core (pinned) in a page: serious and critical violations, in light and dark, wide and phone. */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

const AXE = readFileSync(path.resolve(import.meta.dirname, '../../node_modules/axe-core/axe.min.js'), 'utf8');
export const WIDE = { width: 1440, height: 900 };
export const PHONE = { width: 390, height: 844 };

export async function axeSerious(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const r = await (window as unknown as { axe: { run: (o: unknown) => Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }).axe.run({
      resultTypes: ['violations'],
    });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
  });
}

/** axe in light and dark, at 1440 and 390 px, screenshots to `artifacts`; nothing wider than the phone's viewport. */
export async function checkAccessible(page: Page, name: string, artifacts: string) {
  mkdirSync(artifacts, { recursive: true });
  const found: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [label, size] of [['wide', WIDE], ['phone', PHONE]] as const) {
      await page.setViewportSize(size);
      await page.waitForTimeout(50);
      await page.screenshot({ path: path.join(artifacts, `${name}-${scheme}-${label}.png`), fullPage: true });
      for (const v of await axeSerious(page)) found.push(`${name} ${scheme} ${label}: ${v}`);
      if (label === 'phone') expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} ${scheme} phone width`).toBeLessThanOrEqual(PHONE.width);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(WIDE);
  expect(found).toEqual([]);
}
