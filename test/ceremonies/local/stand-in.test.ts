// Issue 35 item 6 (over a real socket, remembered ids in SQLite): the local variant's stand-in for a user it
// does not remember has the shape of the credentials it lists for registered users (id length, transports
// and their order, the descriptor's members and their order), as the standard variant's stand-in has the shape
// of its stored credentials; so one assertion options call does not tell a registered user from an unknown
// one. Each variant imitates its own credentials: a standard user's synced passkey does not shape the local
// stand-in, nor the reverse.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApplicationConfig } from '../../../src/service-config.js';
import { openSqliteChallengeStore } from '../../../src/stores/sqlite/challenges.js';
import { applicationConfig, DOMAIN, expectOk, ORIGIN, PATHS } from '../../support/harness.js';
import { SoftAuthenticator } from '../../support/soft-authenticator.js';
import { LocalFlow } from './support.js';
import { SocketLocalRig } from './socket-rig.js';

/** A security key: a 48-byte credential id, NFC and USB (reported out of order, as browsers may). */
const SECURITY_KEY = {
  transports: ['usb', 'nfc'],
  clientExtensionResults: { credProps: { rk: false } },
} as const;

/** A socket rig whose remembered ids live in a SQLite file; closed and removed after the test file. */
async function rigWith(app: ApplicationConfig): Promise<SocketLocalRig> {
  const dir = mkdtempSync(join(tmpdir(), 'passkey-stand-in-'));
  let rig: SocketLocalRig | undefined;
  const challenges = await openSqliteChallengeStore(join(dir, 'passkeys.db'), {
    clock: () => rig?.h.clock.now() ?? Date.now(),
  });
  rig = await SocketLocalRig.start({ challenges, apps: [app] });
  const started = rig;
  after(async () => {
    await started.close();
    await challenges.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return rig;
}

/** What an observer compares between two options answers: everything but the random bytes of the ids. */
function shapeOf(allowCredentials: readonly Record<string, unknown>[]) {
  return allowCredentials.map((descriptor) => ({
    members: Object.keys(descriptor),
    type: descriptor.type,
    idBytes: Buffer.from(String(descriptor.id), 'base64url').length,
    transports: descriptor.transports,
  }));
}

describe('local variant: the stand-in has the shape of the credentials it lists (SQLite, over the socket)', () => {
  it('a registered security key and an unknown user look alike in one options call', async () => {
    const rig = await rigWith(applicationConfig({ variants: ['local'] }));
    const alice = new LocalFlow(rig, 'alice');
    await alice.registered({ ...SECURITY_KEY, credentialId: randomBytes(48) });
    const registered = (await alice.assertionOptions()).allowCredentials;
    assert.deepEqual(shapeOf(registered), [
      { members: ['type', 'id', 'transports'], type: 'public-key', idBytes: 48, transports: ['nfc', 'usb'] },
    ]);
    for (const name of ['bob', 'carol', 'dave']) {
      const unknown = (await new LocalFlow(rig, name).assertionOptions()).allowCredentials;
      assert.deepEqual(shapeOf(unknown), shapeOf(registered), name);
      assert.notEqual(unknown[0].id, registered[0].id);
    }
  });

  it("each variant's stand-in imitates that variant's credentials, not the other's", async () => {
    const rig = await rigWith(applicationConfig({ variants: ['standard', 'local'] }));
    // A standard user with a synced passkey (16-byte id, hybrid and internal), listed once so it is learnt.
    const passkey = new SoftAuthenticator({ origin: ORIGIN });
    const standard = { origin: ORIGIN };
    const erin = `erin#${DOMAIN}`;
    const creation = expectOk(await rig.post(PATHS.attestationOptions, { username: erin }, standard));
    const made = passkey.register(creation, { credentialId: randomBytes(16), transports: ['internal', 'hybrid'] });
    expectOk(await rig.post(PATHS.attestationResult, made, standard));
    const erinListed = expectOk(await rig.post(PATHS.assertionOptions, { username: erin }, standard)).allowCredentials;
    assert.deepEqual(shapeOf(erinListed)[0]?.idBytes, 16);

    // A local user with a security key (48 bytes, nfc and usb), listed once.
    const alice = new LocalFlow(rig, 'alice');
    await alice.registered({ ...SECURITY_KEY, credentialId: randomBytes(48) });
    const aliceListed = (await alice.assertionOptions()).allowCredentials;

    const localUnknown = (await new LocalFlow(rig, 'frank').assertionOptions()).allowCredentials;
    assert.deepEqual(shapeOf(localUnknown), shapeOf(aliceListed), 'the local stand-in looks like a local credential');
    const standardUnknown = expectOk(
      await rig.post(PATHS.assertionOptions, { username: `frank#${DOMAIN}` }, standard),
    ).allowCredentials;
    assert.deepEqual(shapeOf(standardUnknown), shapeOf(erinListed), 'the standard one like a standard credential');
  });
});
