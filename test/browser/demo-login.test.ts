// The demo's login page (demo/public/index.html), built on the browser package's elements as a product's
// login page: one field with autofill, "Continue", "Sign in with a passkey", "Create a passkey"; after
// sign-in a security page with the user's passkeys; developer details behind one closed disclosure.
// Screenshots of it land in test-output/browser/ (docs/demo.md shows copies).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { DOMAIN, open, startDemoWorld, type DemoWorld, type Variant } from './demo-world.js';
import { screenshot } from './support.js';

async function securityPage(page: Page): Promise<string> {
  await page.waitForSelector('#security:not([hidden])', { timeout: 20_000 });
  return (await page.textContent('#user')) ?? '';
}

describe('demo: the login page and the security page, on the elements', { timeout: 180_000 }, () => {
  let world: DemoWorld;
  before(async () => {
    world = await startDemoWorld();
  });
  after(() => world?.close());

  for (const variant of ['standard', 'local'] as const satisfies readonly Variant[]) {
    it(`${variant}: creates a passkey from a plain name, shows the security page, and signs in again from the autofill list`, async () => {
      const tab = await world.tab('platform');
      try {
        const { page } = tab;
        await open(page, world.home(variant));
        // A login page: the card, the element, the developer details closed; no variant or suffix in sight.
        assert.equal(await page.isVisible('#login'), true);
        assert.equal(await page.isVisible('#security'), false);
        assert.equal(await page.getAttribute('#developer', 'open'), null);
        assert.equal(await page.isVisible('#variant'), false);
        assert.equal(await page.textContent('passkey-sign-in button[part~="continue"]'), 'Continue');
        assert.equal(await page.textContent('passkey-sign-in button[part~="passkey"]'), 'Sign in with a passkey');
        if (variant === 'standard') await screenshot(page, 'demo-login');

        const user = `carol-${variant}`;
        const full = `${user}#${variant === 'standard' ? DOMAIN : 'localhost'}`;
        await page.fill('passkey-sign-in input', user);
        await page.click('passkey-sign-in button[part~="register"]');
        assert.equal(await securityPage(page), full);
        // Both variants list the passkey (the local one from the relay's store, with a note saying so).
        await page.waitForSelector('passkey-list[data-state="ready"] li', { timeout: 15_000 });
        assert.equal(await page.locator('passkey-list li').count(), 1);
        assert.equal(await page.isVisible('#local-note'), variant === 'local');
        if (variant === 'standard') await screenshot(page, 'demo-security');
        // The developer details know the variant and the last answer, once opened.
        await page.click('#developer summary');
        assert.equal(await page.textContent('#variant'), variant);
        assert.equal(JSON.parse((await page.textContent('#last-answer')) ?? '{}').username, full);
        if (variant === 'standard') await screenshot(page, 'demo-developer-details');

        // A reload keeps the session; signing out shows the login page, whose autofill signs in again.
        await open(page, world.home(variant));
        assert.equal(await securityPage(page), full);
        await Promise.all([page.waitForNavigation({ timeout: 15_000 }), page.click('#sign-out')]);
        await page.waitForSelector('passkey-sign-in[data-autofill="done"]', { state: 'attached', timeout: 20_000 });
        assert.equal(await securityPage(page), full);
      } finally {
        await tab.close();
      }
    });
  }

  it('standard: the security page deletes a passkey only after a confirmation', async () => {
    const tab = await world.tab('platform');
    try {
      const { page } = tab;
      await open(page, world.home('standard'));
      await page.fill('passkey-sign-in input', 'dave');
      await page.click('passkey-sign-in button[part~="register"]');
      await securityPage(page);
      await page.waitForSelector('passkey-list[data-state="ready"] li', { timeout: 15_000 });
      await page.click('passkey-list button[part~="delete"]');
      assert.equal(await page.isVisible('passkey-list [part~="confirm"]'), true);
      await page.click('passkey-list button[part~="cancel"]');
      assert.equal(await page.locator('passkey-list li').count(), 1);
      await page.click('passkey-list button[part~="delete"]');
      await page.click('passkey-list button[part~="confirm-delete"]');
      await page.waitForSelector('passkey-list [part~="empty"]', { timeout: 15_000 });
      assert.equal(await page.textContent('passkey-list [part~="message"]'), 'Passkey deleted.');
    } finally {
      await tab.close();
    }
  });
});
