// The `hanko` reader (src/transfer/from-hanko.ts): Hanko's user import list read as a stream cut anywhere; the
// user handle is the 16 bytes of user_id, or the UTF-8 bytes of user_handle; the name is username, else the
// primary e-mail address; malformed credentials refused with their JSON path.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readHanko } from '../../src/transfer/from-hanko.js';
import { AAGUID, chunked, hankoList, hankoUser, plainItem, readAll } from '../support/source-files.js';

describe('readHanko', () => {
  const users = [hankoUser('ann', -7, 3), hankoUser('bob', -257, 0), hankoUser('carol', -8, 1)];
  const list = hankoList(users);

  it('reads every credential field by field, cut into chunks anywhere', async () => {
    for (const size of [1, 29, 1 << 20]) {
      const items = await readAll(readHanko(chunked(list, size)));
      assert.deepEqual(
        items.map(plainItem),
        users.map((u, i) => ({
          at: `$[${i}].webauthn_credentials[0]`,
          record: {
            username: `${u.user}@example.com`,
            userHandle: u.held.userHandle,
            displayName: `${u.user}@example.com`,
            credentialId: u.held.credentialId,
            publicKey: u.held.cose,
            signCount: u.signCount,
            transports: ['internal', 'hybrid'],
            backupEligible: true,
            backupState: true,
            aaguid: AAGUID,
            nickname: `${u.user}'s passkey`,
            createdAt: Date.UTC(2025, 0, 2, 3, 4, 5, 123),
            lastUsedAt: null,
            rpId: null,
            residentKey: null,
            attestation: null,
            status: null,
          },
        })),
        `chunks of ${size}`,
      );
    }
  });

  it('prefers username; reads user_handle as its UTF-8 bytes; reads an AAGUID of 16 numbers', async () => {
    const doc = JSON.parse(list);
    doc[0].username = 'ann';
    doc[0].webauthn_credentials[0].user_handle = 'legacy-7';
    doc[0].webauthn_credentials[0].aaguid = [...Buffer.from(AAGUID.replace(/-/g, ''), 'hex')];
    const [item] = await readAll(readHanko(chunked(JSON.stringify(doc.slice(0, 1)), 7)));
    assert.ok(item && 'record' in item);
    assert.equal(item.record.username, 'ann');
    assert.equal(item.record.userHandle, Buffer.from('legacy-7').toString('base64url'));
    assert.equal(item.record.aaguid, AAGUID);
  });

  it('refuses malformed credentials with their JSON path, and a document that is not a list', async () => {
    const doc = JSON.parse(list);
    doc[0].webauthn_credentials[0].public_key = 42;
    delete doc[1].user_id;
    doc[2].emails = [];
    doc.push({
      emails: null,
      username: 'dan',
      user_id: 'not-a-uuid',
      webauthn_credentials: [{ id: 'AAAA', public_key: 'AAAA' }],
    });
    const items = await readAll(readHanko(chunked(JSON.stringify(doc), 31)));
    assert.deepEqual(
      items.map((item) => [item.at, 'refused' in item ? item.refused.message : 'record']),
      [
        ['$[0].webauthn_credentials[0]', 'public_key: missing or not a text'],
        [
          '$[1].webauthn_credentials[0]',
          'user_id: missing, and no user_handle: the handle the authenticator holds is unknown',
        ],
        ['$[2].webauthn_credentials[0]', 'username: missing, and no primary e-mail address'],
        ['$[3].webauthn_credentials[0]', 'user_id: not a UUID'],
      ],
    );
    const notAList = await readAll(readHanko(chunked('{"users": []}', 4)));
    assert.deepEqual(notAList, [
      { at: '$', refused: { reason: 'MALFORMED_RECORD', message: 'the document is not a JSON array of users' } },
    ]);
  });
});
