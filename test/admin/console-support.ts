// What the console's Chromium tests share: a page in a fresh light-mode context that records every CSP
// violation the console raises, and the way in (the console, the admin token, an application's page).
import type { Browser, Page } from 'playwright-core';

/** A new page of its own context, `height` pixels tall, whose CSP violations go into `violations`. */
export async function consolePage(
  browser: Browser,
  violations: string[],
  options: { readonly height: number; readonly timeoutMs: number },
): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: options.height }, colorScheme: 'light' });
  context.setDefaultTimeout(options.timeoutMs);
  const page = await context.newPage();
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  return page;
}

/** Signs in to the console at `adminUrl` with `token` and opens the page of the application named `name`. */
export async function openApplication(page: Page, adminUrl: string, token: string, name: string): Promise<void> {
  await page.goto(`${adminUrl}/console/`);
  await page.getByLabel('Admin token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Applications' }).click();
  await page.getByRole('link', { name }).click();
}
