// The signed-in user's passkeys on the demo page, in Chromium through the relay (issue 18): the list, a
// deletion, the Signal API calls the page makes with the answers' `signals`, and what Chromium 156 does
// with them on CDP virtual authenticators (it acts on them: the passkey manager is the authenticator).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { ENGLISH_SENTENCES } from '@passkey-server/browser';
import { AUTHENTICATORS } from './support.js';
import { base64url, click, fill, open, signedIn, startDemoWorld, type DemoWorld } from './demo-world.js';

interface Listed {
  readonly id: string;
  readonly name: string;
  readonly facts: string;
}

/** The list the page shows once it has loaded (`count` entries), waited for (bounded). */
async function listed(page: Page, count: number): Promise<Listed[]> {
  await page.waitForSelector(`#passkeys[data-count="${count}"]`, { state: 'visible', timeout: 15_000 });
  return page.$$eval('#passkey-list li', (items) =>
    items.map((item) => ({
      id: (item as HTMLElement).dataset.credentialId ?? '',
      name: item.querySelector('.name')?.textContent ?? '',
      facts: item.querySelector('.small')?.textContent ?? '',
    })),
  );
}

/** What the page told the browser last (`sendSignals` outcomes), as `signal:status` words. */
async function signalled(page: Page): Promise<string[]> {
  const outcomes = await page.evaluate(() => document.getElementById('signals')!.dataset.outcomes ?? '[]');
  return (JSON.parse(outcomes) as Array<{ signal: string; status: string }>).map((o) => `${o.signal}:${o.status}`);
}

async function relayCall(page: Page, path: string, body: unknown): Promise<{ status: number; body: any }> {
  return page.evaluate(
    async ({ path, body }) => {
      const response = await fetch(`/relay/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    },
    { path, body },
  );
}

describe("browser: the demo page's passkey list and the Signal API, in Chromium", { timeout: 110_000 }, () => {
  let world: DemoWorld;
  before(async () => {
    world = await startDemoWorld();
  });
  after(() => world?.close());

  it("lists the signed-in user's passkeys, deletes one through the relay, and the browser is told (Chromium drops it)", async () => {
    const opened = await world.tab('platform');
    const { page } = opened;
    const username = world.username('keeper', 'standard');
    await open(page, world.url('standard'));
    await fill(page, { user: 'keeper', kind: 'platform' });
    assert.equal((await click(page, '#register')).kind, 'ok');
    assert.deepEqual(await signalled(page), ['allAcceptedCredentials:sent', 'currentUserDetails:sent']);
    assert.deepEqual(await click(page, '#sign-in'), { kind: 'ok', text: `Signed in as ${username}.` });
    assert.deepEqual(await signalled(page), ['allAcceptedCredentials:sent', 'currentUserDetails:sent']);
    const [platform] = await opened.credentials();
    const platformId = base64url(platform!.credentialId);
    assert.equal((await listed(page, 1))[0]!.id, platformId);

    // A second passkey on a U2F key, added while signed in: the list shows both, this sign-in's marked.
    const { authenticatorId: keyId } = await opened.cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: AUTHENTICATORS.roaming as never,
    });
    await fill(page, { user: 'keeper', kind: 'roaming' });
    assert.equal((await click(page, '#register')).kind, 'ok');
    const { credentials: onKey } = await opened.cdp.send('WebAuthn.getCredentials', { authenticatorId: keyId });
    const keyCredentialId = base64url(onKey[0]!.credentialId);
    const both = await listed(page, 2);
    assert.deepEqual(
      both.map((entry) => entry.id),
      [platformId, keyCredentialId],
    );
    assert.match(
      both[0]!.facts,
      /\(used for this sign-in\) · bound to one device · added \d{4}-\d\d-\d\d · last used \d{4}-\d\d-\d\d/,
    );
    assert.match(both[1]!.facts, /never used to sign in/);

    // Delete the passkey of this sign-in: the answer's signals list the U2F key's only, and Chromium's
    // virtual platform authenticator drops the deleted passkey (it holds discoverable credentials).
    await page.click(`#passkey-list li[data-credential-id="${platformId}"] button.delete`);
    await page.waitForFunction(() => document.getElementById('message')!.dataset.kind === 'ok', undefined, {
      timeout: 15_000,
    });
    assert.equal(
      await page.textContent('#message'),
      'Passkey deleted (the one you signed in with; you stay signed in).',
    );
    assert.deepEqual(
      (await listed(page, 1)).map((entry) => entry.id),
      [keyCredentialId],
    );
    assert.deepEqual(await signalled(page), ['allAcceptedCredentials:sent', 'currentUserDetails:sent']);
    assert.equal((await opened.credentials()).length, 0, 'Chromium removed the deleted passkey from the authenticator');
    assert.equal((await signedIn(page)).user, username);

    // The deleted credential is gone at the service: a sign-in by name offers the U2F key's only.
    assert.deepEqual(await click(page, '#sign-in'), { kind: 'ok', text: `Signed in as ${username}.` });
    assert.equal((await signedIn(page)).credentialId, keyCredentialId);
  });

  it('a sign-in without a name with a passkey the site deleted: the page tells the browser, and Chromium drops it', async () => {
    const opened = await world.tab('platform');
    const { page } = opened;
    await open(page, world.url('standard'));
    await fill(page, { user: 'ghost', kind: 'platform' });
    assert.equal((await click(page, '#register')).kind, 'ok');
    assert.equal((await click(page, '#sign-in')).kind, 'ok');
    const [held] = await opened.credentials();
    const id = base64url(held!.credentialId);
    // Deleted behind the page's back (no signal), so the authenticator still offers it.
    const deleted = await relayCall(page, 'credentials/delete', { credentialId: id });
    assert.equal(deleted.body.status, 'ok', JSON.stringify(deleted.body));
    assert.equal((await opened.credentials()).length, 1);
    assert.equal((await click(page, '#sign-out')).text, 'Signed out.');

    await page.fill('#username', '');
    const refused = await click(page, '#passkey-sign-in');
    assert.deepEqual(refused, { kind: 'error', text: ENGLISH_SENTENCES.unknownPasskey });
    assert.match((await page.textContent('#message-detail')) ?? '', /^CREDENTIAL_ID_NOT_FOUND: /);
    assert.deepEqual(await signalled(page), ['unknownCredential:sent']);
    assert.equal((await opened.credentials()).length, 0, 'Chromium removed the unknown passkey from the authenticator');
  });

  it("the relay acts only for the signed-in user: nobody signed in is refused, another user's passkey is not found", async () => {
    const owner = await world.tab('platform');
    await open(owner.page, world.url('standard'));
    await fill(owner.page, { user: 'victim', kind: 'platform' });
    assert.equal((await click(owner.page, '#register')).kind, 'ok');
    const victimId = base64url((await owner.credentials())[0]!.credentialId);

    const other = await world.tab('platform');
    await open(other.page, world.url('standard'));
    const anonymous = await relayCall(other.page, 'credentials/list', {});
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.errorMessage[0], 'RELAY_NOT_SIGNED_IN');
    await fill(other.page, { user: 'intruder', kind: 'platform' });
    assert.equal((await click(other.page, '#register')).kind, 'ok');
    assert.equal((await click(other.page, '#sign-in')).kind, 'ok');
    // The browser cannot name another user: the relay sends the session's user, whatever the body says.
    const taken = await relayCall(other.page, 'credentials/delete', {
      credentialId: victimId,
      username: world.username('victim', 'standard'),
    });
    assert.equal(taken.status, 400);
    assert.equal(taken.body.errorMessage[0], 'CREDENTIAL_ID_NOT_FOUND');
    const listing = await relayCall(other.page, 'credentials/list', { username: world.username('victim', 'standard') });
    assert.deepEqual(
      listing.body.credentials.map((c: { credentialId: string }) => c.credentialId),
      [base64url((await other.credentials())[0]!.credentialId)],
    );
    // The victim's passkey still signs in.
    assert.equal((await click(owner.page, '#sign-in')).kind, 'ok');
  });

  it('local variant: no list to manage (the service keeps no passkeys), and no signals', async () => {
    const opened = await world.tab('platform');
    const { page } = opened;
    await open(page, world.url('local'));
    await fill(page, { user: 'local-user', kind: 'platform' });
    assert.equal((await click(page, '#register')).kind, 'ok');
    assert.equal((await click(page, '#sign-in')).kind, 'ok');
    await page.waitForSelector('#passkeys-note[data-state="local"]', { state: 'visible' });
    assert.equal(await page.$$eval('#passkey-list li', (items) => items.length), 0);
    assert.equal(await page.textContent('#signals'), '');
  });
});
