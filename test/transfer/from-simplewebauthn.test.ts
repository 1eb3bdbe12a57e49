// The `simplewebauthn` reader (src/transfer/from-simplewebauthn.ts): SimpleWebAuthn's Passkey model as JSON Lines
// or one JSON array, cut anywhere, each field read into the import's record; the forms a dump gives the key
// bytes; a malformed record refused with its line or JSON path, the others read on.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readSimpleWebAuthn } from '../../src/transfer/from-simplewebauthn.js';
import { chunked, plainItem, readAll, simpleWebAuthnPasskey, sourcePasskey } from '../support/source-files.js';

const NO_AAGUID = '00000000-0000-0000-0000-000000000000';

describe('readSimpleWebAuthn', () => {
  const passkeys = [sourcePasskey('ann', -7, 5), sourcePasskey('bob', -257, 0), sourcePasskey('Zoë 🔑', -8, 9)];
  const expected = (p: (typeof passkeys)[number]) => ({
    username: p.user,
    userHandle: p.held.userHandle,
    displayName: null,
    credentialId: p.held.credentialId,
    publicKey: p.held.cose,
    signCount: p.signCount,
    transports: ['internal', 'hybrid'],
    backupEligible: true,
    backupState: true,
    aaguid: NO_AAGUID,
    nickname: null,
    createdAt: null,
    lastUsedAt: null,
    rpId: null,
    residentKey: null,
    attestation: null,
    status: null,
  });

  it('reads JSON Lines field by field, cut into chunks anywhere', async () => {
    const text = passkeys.map((p) => `${JSON.stringify(simpleWebAuthnPasskey(p))}\n`).join('');
    for (const size of [1, 5, 4096]) {
      const items = await readAll(readSimpleWebAuthn(chunked(text, size)));
      assert.deepEqual(
        items.map(plainItem),
        passkeys.map((p, i) => ({ at: i + 1, record: expected(p) })),
      );
    }
  });

  it('reads one JSON array, each record placed by its JSON path, and every form of the key bytes', async () => {
    const forms = [
      (cose: Buffer) => cose.toString('base64url'),
      (cose: Buffer) => cose.toString('base64'),
      (cose: Buffer) => [...cose],
      (cose: Buffer) => Object.fromEntries([...cose].map((b, i) => [String(i), b])),
      (cose: Buffer) => `\\x${cose.toString('hex')}`,
    ];
    const p = passkeys[0]!;
    const array = forms.map((form) => ({
      ...simpleWebAuthnPasskey(p),
      user: undefined,
      username: p.user,
      publicKey: form(p.held.cose),
      transports: 'internal,hybrid',
    }));
    const items = await readAll(readSimpleWebAuthn(chunked(`  ${JSON.stringify(array, null, 1)}`, 3)));
    assert.equal(items.length, forms.length);
    items.forEach((item, i) => {
      assert.equal(item.at, `$[${i}]`);
      assert.ok('record' in item, JSON.stringify(item));
      assert.deepEqual(Buffer.from(item.record.publicKey), p.held.cose);
      assert.deepEqual(item.record.transports, ['internal', 'hybrid']);
    });
  });

  it('reads webAuthnUserID (the documentation example spelling), singleDevice, a counter as text', async () => {
    const p = passkeys[1]!;
    const line = { ...simpleWebAuthnPasskey(p), webauthnUserID: undefined, webAuthnUserID: p.held.userHandle };
    Object.assign(line, { deviceType: 'singleDevice', backedUp: false, counter: '12', transports: undefined });
    const [item] = await readAll(readSimpleWebAuthn(chunked(JSON.stringify(line), 64)));
    assert.ok(item && 'record' in item);
    assert.equal(item.record.userHandle, p.held.userHandle);
    assert.equal(item.record.signCount, 12);
    assert.equal(item.record.backupEligible, false);
    assert.deepEqual(item.record.transports, []);
  });

  it('refuses each malformed record with its line, and reads the others', async () => {
    const good = simpleWebAuthnPasskey(passkeys[0]!);
    const lines = [
      JSON.stringify(good),
      '{"id": "not json',
      JSON.stringify({ ...good, user: undefined }),
      JSON.stringify({ ...good, publicKey: 'not*base64' }),
      JSON.stringify({ ...good, deviceType: 'phone' }),
      JSON.stringify({ ...good, counter: -1 }),
      JSON.stringify({ ...good, webauthnUserID: undefined }),
      '[1, 2]',
      JSON.stringify(good),
    ];
    const items = await readAll(readSimpleWebAuthn(chunked(lines.join('\n'), 11)));
    const refused = items.filter((item) => 'refused' in item);
    assert.deepEqual(
      refused.map((item) => [item.at, 'refused' in item && item.refused.reason]),
      [2, 3, 4, 5, 6, 7, 8].map((line) => [line, 'MALFORMED_RECORD']),
    );
    assert.deepEqual(
      refused.map((item) => 'refused' in item && item.refused.message),
      [
        'the line is not JSON',
        'username: missing (neither username nor user.username)',
        'publicKey: not base64url, base64, hex or a list of bytes',
        'deviceType: not "singleDevice" or "multiDevice"',
        'counter: not a non-negative integer',
        'webauthnUserID: missing or not a text',
        'a passkey is not a JSON object',
      ],
    );
    assert.deepEqual(
      items.filter((item) => 'record' in item).map((item) => item.at),
      [1, 9],
    );
  });

  it('refuses a broken array at the element it broke', async () => {
    const text = `[${JSON.stringify(simpleWebAuthnPasskey(passkeys[0]!))}, {"id": ]`;
    const items = await readAll(readSimpleWebAuthn(chunked(text, 9)));
    assert.equal(items.length, 2);
    assert.equal(items[1]!.at, '$[1]');
    assert.ok('refused' in items[1]! && /where a value should be/.test(items[1].refused.message));
  });
});
