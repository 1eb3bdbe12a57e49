// The `keycloak` reader (src/transfer/from-keycloak.ts): a realm export as `kc.sh export` writes it (the
// credentialData JSON text, the credential id in standard base64, the COSE key in base64url), read as a stream
// cut anywhere; the user handle is the UTF-8 bytes of users[].id; the realm's RP IDs are stated; malformed
// credentials refused with their JSON path.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readKeycloak } from '../../src/transfer/from-keycloak.js';
import { AAGUID, chunked, keycloakRealm, keycloakUser, plainItem, readAll } from '../support/source-files.js';

describe('readKeycloak', () => {
  const users = [keycloakUser('ann', -7, 3), keycloakUser('bob', -257, 0), keycloakUser('carol', -8, 12)];
  const realm = keycloakRealm(users);

  it('reads every webauthn and webauthn-passwordless credential field by field, cut into chunks anywhere', async () => {
    for (const size of [1, 17, 1 << 20]) {
      const items = await readAll(readKeycloak(chunked(realm, size)));
      assert.deepEqual(
        items.map(plainItem),
        users.map((u, i) => ({
          at: `$.users[${i}].credentials[1]`,
          record: {
            username: u.user,
            userHandle: Buffer.from(u.id, 'utf8').toString('base64url'),
            displayName: `Ann Example ${i}`,
            credentialId: u.held.credentialId,
            publicKey: u.held.cose,
            signCount: u.signCount,
            transports: ['usb', 'nfc'],
            backupEligible: false,
            backupState: false,
            aaguid: AAGUID,
            nickname: `${u.user}'s key`,
            createdAt: Date.UTC(2025, 0, 2, 3, 4, 5),
            lastUsedAt: null,
            rpId: 'idp.example.test',
            residentKey: null,
            attestation: null,
            status: null,
          },
        })),
        `chunks of ${size}`,
      );
      // The handle is what the authenticator holds.
      assert.equal((items[0] as { record: { userHandle: string } }).record.userHandle, users[0]!.held.userHandle);
    }
  });

  it('states no RP ID when the realm leaves it empty (the host name Keycloak serves on)', async () => {
    const items = await readAll(readKeycloak(chunked(keycloakRealm(users.slice(0, 1), ''), 64)));
    assert.ok('record' in items[0]!);
    assert.equal(items[0].record.rpId, null);
  });

  it('refuses malformed credentials with their JSON path and reads the others', async () => {
    const doc = JSON.parse(realm);
    const credential = (i: number) => doc.users[i].credentials[1];
    credential(0).credentialData = '{"credentialId": ';
    const data = JSON.parse(credential(1).credentialData);
    credential(1).credentialData = JSON.stringify({ ...data, credentialPublicKey: 'not base64!' });
    doc.users.push('not a user', { id: 'x', username: 'dan', credentials: 'none' });
    const items = await readAll(readKeycloak(chunked(JSON.stringify(doc), 23)));
    assert.deepEqual(
      items.map((item) => [item.at, 'refused' in item ? item.refused.message : 'record']),
      [
        ['$.users[0].credentials[1]', 'credentialData: not a JSON text'],
        ['$.users[1].credentials[1]', 'credentialData.credentialPublicKey: not base64url or base64'],
        ['$.users[2].credentials[1]', 'record'],
        ['$.users[3]', 'a user is not a JSON object'],
        ['$.users[4].credentials', 'credentials: not a list'],
      ],
    );
  });

  it('refuses where the document breaks and reads nothing after', async () => {
    const cut = realm.slice(0, realm.indexOf('"credentials"', realm.indexOf(users[1]!.id)));
    const items = await readAll(readKeycloak(chunked(`${cut}}`, 100)));
    assert.equal(items.length, 2);
    assert.ok('record' in items[0]!);
    assert.equal(items[1]!.at, '$.users[1]');
    assert.ok('refused' in items[1]! && items[1].refused.reason === 'MALFORMED_RECORD');
  });

  it('reads a big export (5,000 users, 5 MB) in odd-sized chunks, one record per user in order', async () => {
    const doc = JSON.parse(keycloakRealm(users.slice(0, 1)));
    const template = doc.users[0];
    doc.users = Array.from({ length: 5000 }, (_, i) => ({
      ...template,
      id: `user-${i}`,
      username: `user-${i}-ünïcödé-🔑`,
      attributes: { note: ['x'.repeat(900)] },
    }));
    const text = JSON.stringify(doc);
    assert.ok(text.length > 5_000_000);
    let n = 0;
    for await (const item of readKeycloak(chunked(text, 4093))) {
      assert.ok('record' in item, JSON.stringify(item));
      assert.equal(item.at, `$.users[${n}].credentials[1]`);
      assert.equal(item.record.username, `user-${n}-ünïcödé-🔑`);
      assert.equal(item.record.userHandle, Buffer.from(`user-${n}`).toString('base64url'));
      n++;
    }
    assert.equal(n, 5000);
  });
});
