// The developer bench's "Post-quantum first" (issue 25) in Chromium, whose CDP virtual authenticator makes
// ML-DSA keys: with the box ticked the page asks for the application's ML-DSA algorithms first and a CTAP2
// authenticator makes an ML-DSA-44 passkey, which then signs in (both variants: the service stores it, the
// local variant's sealed blob carries it); a U2F key, which cannot, falls back to ES256 and the page says so;
// unticked, the service's order stands and the passkey is ES256.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { capture, click, fill, open, startDemoWorld, type DemoWorld, type Variant } from './demo-world.js';
import type { AuthenticatorKind } from './support.js';

const detail = (page: import('playwright-core').Page) => page.textContent('#message-detail');

describe('browser: a post-quantum passkey from the demo bench, in Chromium', { timeout: 110_000 }, () => {
  let world: DemoWorld;
  before(async () => {
    world = await startDemoWorld();
  });
  after(() => world?.close());

  async function registerAndSignIn(variant: Variant, kind: AuthenticatorKind, user: string, postQuantum: boolean) {
    const { page } = await world.tab(kind);
    const captured = capture(page);
    await open(page, world.url(variant));
    await fill(page, { user, kind });
    await page.setChecked('#post-quantum', postQuantum);
    const registered = await click(page, '#register');
    const registeredDetail = await detail(page);
    const offered = captured.answers['attestation/options']![0]!.pubKeyCredParams.map((p: { alg: number }) => p.alg);
    const made = captured.attestations[0]!.response.publicKeyAlgorithm as number;
    const signedIn = await click(page, '#sign-in');
    assert.deepEqual(signedIn, { kind: 'ok', text: `Signed in as ${world.username(user, variant)}.` });
    return { registered, offered, made, detail: registeredDetail };
  }

  for (const variant of ['standard', 'local'] as const) {
    it(`${variant} variant: ticked, a platform authenticator makes an ML-DSA-44 passkey, which signs in`, async () => {
      const got = await registerAndSignIn(variant, 'platform', `pq-${variant}`, true);
      const username = world.username(`pq-${variant}`, variant);
      assert.deepEqual(got.registered, {
        kind: 'ok',
        text: `Post-quantum passkey (ML-DSA-44) registered for ${username}. You can sign in with it now.`,
      });
      assert.equal(got.made, -48);
      // The service offers ML-DSA last (classical first); the page asked for it first.
      assert.deepEqual(got.offered.slice(-3), [-48, -49, -50]);
      assert.equal(got.offered[0], -7);
      assert.match(got.detail ?? '', /^pubKeyCredParams asked: -48, -49, -50, -7, .*; the new key's algorithm: -48$/);
    });
  }

  it('ticked, a U2F security key cannot make ML-DSA: it falls back to ES256 and the page says so', async () => {
    const got = await registerAndSignIn('standard', 'roaming', 'pq-fallback', true);
    assert.deepEqual(got.registered, {
      kind: 'ok',
      text: `Passkey registered for ${world.username('pq-fallback', 'standard')}. Your browser or authenticator cannot make a post-quantum (ML-DSA) passkey, so it made a classical one (COSE algorithm -7).`,
    });
    assert.equal(got.made, -7);
  });

  it('unticked: the service order stands, and the platform authenticator makes ES256 as before', async () => {
    const got = await registerAndSignIn('standard', 'platform', 'classical', false);
    assert.deepEqual(got.registered, {
      kind: 'ok',
      text: `Passkey registered for ${world.username('classical', 'standard')}. You can sign in with it now.`,
    });
    assert.equal(got.made, -7);
    assert.match(got.detail ?? '', /^pubKeyCredParams asked: -7, .*-48, -49, -50; the new key's algorithm: -7$/);
  });
});
