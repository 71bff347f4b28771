import type { Browser } from 'playwright-core';

/**
 * A new visitor (its own browser context, so no earlier conversation is restored) opens `pageUrl`,
 * asks the widget `question` and waits for the answer; returns the answer's text.
 */
export async function askWidgetAsNewVisitor(browser: Browser, pageUrl: string, question: string): Promise<string> {
  const own = await browser.newContext();
  try {
    const visitor = await own.newPage();
    await visitor.goto(pageUrl);
    await visitor.locator('groundwork-chat .bubble').click();
    await visitor.locator('groundwork-chat .input').fill(question);
    await visitor.locator('groundwork-chat .input').press('Enter');
    const answer = visitor.locator('groundwork-chat .msg.bot:not(.typing):not(.greeting)').first();
    await answer.locator('.rate').waitFor({ timeout: 30_000 });
    return (await answer.textContent()) ?? '';
  } finally {
    await own.close();
  }
}
