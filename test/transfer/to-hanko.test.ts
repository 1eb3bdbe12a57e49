// The `--to hanko` writer (src/transfer/to-hanko.ts): stored passkeys out as Hanko's user import list, each user
// once with all its passkeys however the pages split them, the user handle kept as user_id (16 bytes) or
// user_handle (a text), a handle Hanko cannot hold written without passkeys; read back by the `hanko` reader,
// every passkey is the one stored.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { checkRecord } from '../../src/transfer/checks.js';
import { readHanko } from '../../src/transfer/from-hanko.js';
import type { SourceRecord } from '../../src/transfer/record.js';
import { writeHanko } from '../../src/transfer/to-hanko.js';
import type { CredentialRecord } from '../../src/stores/types.js';
import { DOMAIN } from '../support/imported-sign-in.js';
import { chunked, readAll, sourcePasskey } from '../support/source-files.js';

const APP = { clientId: 'app-1', domain: DOMAIN, algorithms: [-7, -257, -8] };
const V4 = '08987058-cadc-4b81-b6e1-30de50dcbe96';

function stored(user: string, alg: number, handle: Buffer, aaguid: string): CredentialRecord {
  const p = sourcePasskey(user, alg, 4, handle);
  const source: SourceRecord = {
    username: user,
    userHandle: p.held.userHandle,
    displayName: null,
    credentialId: p.held.credentialId,
    publicKey: p.held.cose,
    signCount: 4,
    transports: ['usb'],
    backupEligible: true,
    backupState: false,
    aaguid,
    nickname: `${user} key`,
    createdAt: Date.UTC(2025, 0, 2),
    lastUsedAt: null,
    rpId: null,
    residentKey: null,
    attestation: null,
    status: null,
  };
  const checked = checkRecord(source, APP, Date.UTC(2026, 0, 1));
  assert.ok('credential' in checked, JSON.stringify(checked));
  return checked.credential;
}

describe('writeHanko', () => {
  const uuidHandle = randomBytes(16);
  const ann1 = stored('ann@example.com', -7, uuidHandle, V4);
  const ann2 = stored('ann@example.com', -8, uuidHandle, 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4');
  const bob = stored('bob', -257, Buffer.from('c0ffee00-1111-4222-8333-444455556666', 'utf8'), V4);
  const carol = stored('carol', -7, randomBytes(32), V4);
  const all = [ann1, ann2, bob, carol];
  const store = {
    listByUser: async (_clientId: string, handle: string) => all.filter((c) => c.userHandle === handle),
  };

  async function written(pages: CredentialRecord[][]): Promise<string> {
    const text = await readAll(
      writeHanko(
        (async function* () {
          yield* pages;
        })(),
        APP,
        store,
      ),
    );
    return text.join('');
  }

  it('writes each user once with all its passkeys, whichever page they are on', async () => {
    const list = JSON.parse(await written([[ann1], [bob], [], [carol, ann2]]));
    assert.equal(list.length, 3);
    const [ann, b, c] = list;
    assert.equal(ann.user_id.replace(/-/g, ''), uuidHandle.toString('hex'));
    assert.deepEqual(ann.emails, [{ address: 'ann@example.com', is_primary: true, is_verified: false }]);
    assert.equal(ann.username, undefined);
    assert.deepEqual(
      ann.webauthn_credentials.map((c: { id: string; aaguid: string; user_handle: null }) => [
        c.id,
        c.aaguid,
        c.user_handle,
      ]),
      [
        [ann1.credentialId, V4, null],
        // Hanko's importer takes UUID v4 AAGUIDs only.
        [ann2.credentialId, '00000000-0000-0000-0000-000000000000', null],
      ],
    );
    assert.equal(b.username, 'bob');
    assert.equal(b.user_id, undefined);
    assert.equal(b.webauthn_credentials[0].user_handle, 'c0ffee00-1111-4222-8333-444455556666');
    assert.equal(c.username, 'carol');
    assert.equal(c.webauthn_credentials, undefined, 'a 32-byte handle Hanko cannot hold: no passkeys');
    assert.deepEqual(JSON.parse(await written([])), []);
  });

  it('reads back through the hanko reader as the passkeys stored', async () => {
    const text = await written([[ann1, ann2, bob, carol]]);
    const items = await readAll(readHanko(chunked(text, 50)));
    assert.equal(items.length, 3);
    for (const [i, original] of [ann1, ann2, bob].entries()) {
      const item = items[i]!;
      assert.ok('record' in item, JSON.stringify(item));
      const again = checkRecord(item.record, APP, Date.UTC(2026, 0, 1));
      assert.ok('credential' in again);
      assert.equal(again.credential.username, original.username);
      assert.equal(again.credential.userHandle, original.userHandle);
      assert.equal(again.credential.credentialId, original.credentialId);
      assert.deepEqual(Buffer.from(again.credential.publicKey), Buffer.from(original.publicKey));
      assert.equal(again.credential.signCount, original.signCount);
      assert.equal(again.credential.nickname, original.nickname);
      assert.equal(again.credential.createdAt, original.createdAt);
    }
  });
});
