// The `line-fido2-server` reader (src/transfer/from-line-fido2-server.ts): USER_KEY rows with their transports
// as a SQL client exports them (CSV, header, quoted fields, a quote doubled, a field over two lines, NULL as an
// empty field) or as JSON Lines; the X.509 SubjectPublicKeyInfo turned into the COSE key the authenticator
// gave at registration; each malformed row refused with its line.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readLineFido2Server } from '../../src/transfer/from-line-fido2-server.js';
import { coseFromSpki } from '../../src/transfer/spki-cose.js';
import { generateKeyPairFor } from '../support/soft-authenticator.js';
import { AAGUID, chunked, lineCsv, lineRow, plainItem, readAll, sourcePasskey } from '../support/source-files.js';

describe('readLineFido2Server', () => {
  const algs = [-7, -257, -8, -35];
  const passkeys = algs.map((alg, i) => sourcePasskey(`user${i}`, alg, i * 10));
  const rows = passkeys.map((p, i) => lineRow(p, algs[i]!, i + 1));

  it('reads CSV rows field by field, the key as the COSE key the authenticator holds, cut anywhere', async () => {
    const csv = lineCsv(rows);
    for (const size of [1, 13, 1 << 20]) {
      const items = await readAll(readLineFido2Server(chunked(csv, size)));
      assert.deepEqual(
        items.map(plainItem),
        passkeys.map((p, i) => ({
          at: i + 2,
          record: {
            username: p.user,
            userHandle: p.held.userHandle,
            displayName: `${p.user}, "the" user`,
            credentialId: p.held.credentialId,
            publicKey: p.held.cose,
            signCount: p.signCount,
            transports: ['usb', 'nfc'],
            backupEligible: false,
            backupState: false,
            aaguid: AAGUID,
            nickname: null,
            createdAt: Date.UTC(2025, 0, 2, 3, 4, 5, 123),
            lastUsedAt: null,
            rpId: 'idp.example.test',
            residentKey: true,
            attestation: null,
            status: null,
          },
        })),
        `chunks of ${size}`,
      );
    }
  });

  it('reads JSON Lines with the same columns (any case), transports as a list, booleans and numbers', async () => {
    const lines = rows.map((row, i) => {
      const upper = Object.fromEntries(Object.entries(row).map(([k, v]) => [k.toUpperCase(), v]));
      return JSON.stringify({ ...upper, SIGNATURE_ALGORITHM: algs[i], RK: false, TRANSPORTS: ['internal'] });
    });
    const items = await readAll(readLineFido2Server(chunked(`${lines.join('\n')}\n`, 37)));
    assert.deepEqual(
      items.map((item) => 'record' in item && [item.at, item.record.residentKey, item.record.transports]),
      rows.map((_, i) => [i + 1, false, ['internal']]),
    );
    assert.ok(
      items.every((item, i) => 'record' in item && Buffer.from(item.record.publicKey).equals(passkeys[i]!.held.cose)),
    );
  });

  it('reads a quoted field over two lines, a tab-separated export with \\N for NULL', async () => {
    const withBreak = lineCsv([{ ...rows[0]!, user_display_name: 'Ann\nExample, Jr.' }]);
    const [item] = await readAll(readLineFido2Server(chunked(withBreak, 5)));
    assert.ok(item && 'record' in item);
    assert.equal(item.at, 2);
    assert.equal(item.record.displayName, 'Ann\nExample, Jr.');
    const header = Object.keys(rows[1]!);
    const tsv = `${header.join('\t')}\n${header.map((k) => rows[1]![k] ?? '\\N').join('\t')}\n`;
    const [tabbed] = await readAll(readLineFido2Server(chunked(tsv, 8)));
    assert.ok(tabbed && 'record' in tabbed, JSON.stringify(tabbed));
    assert.equal(tabbed.record.username, 'user1');
    assert.equal(tabbed.record.lastUsedAt, null);
  });

  it('refuses each malformed row with its line and reads the others', async () => {
    const bad = [
      { ...rows[0]!, public_key: 'AAAA' },
      { ...rows[0]!, signature_algorithm: '-47' },
      { ...rows[0]!, signature_algorithm: '-8' },
      { ...rows[0]!, sign_counter: 'many' },
      { ...rows[0]!, username: null },
      { ...rows[0]!, registered_timestamp: 'yesterday' },
      { ...rows[0]!, rk: 'maybe' },
      rows[1]!,
    ];
    const csv = `${lineCsv(bad)}"1","short row"\r\n`;
    const items = await readAll(readLineFido2Server(chunked(csv, 19)));
    assert.deepEqual(
      items.map((item) => [item.at, 'refused' in item ? [item.refused.reason, item.refused.message] : 'record']),
      [
        [2, ['INVALID_PUBLIC_KEY', 'public_key: the public key is not an X.509 SubjectPublicKeyInfo']],
        [3, ['ALGORITHM_NOT_ALLOWED', 'public_key: COSE algorithm -47 is not one the service knows']],
        [4, ['INVALID_PUBLIC_KEY', 'public_key: the public key is EC P-256, not a key of EdDSA (-8)']],
        [5, ['MALFORMED_RECORD', 'sign_counter: not a non-negative integer']],
        [6, ['MALFORMED_RECORD', 'username: missing or not a text']],
        [7, ['MALFORMED_RECORD', 'registered_timestamp: not a time']],
        [8, ['MALFORMED_RECORD', 'rk: not a boolean']],
        [9, 'record'],
        [10, ['MALFORMED_RECORD', 'the row has 2 fields, the header 17']],
      ],
    );
  });

  it('turns a P-521 key into COSE and refuses a curve other than the algorithm says', () => {
    const { publicKey } = generateKeyPairFor(-36);
    const p521 = (publicKey as import('node:crypto').KeyObject).export({ type: 'spki', format: 'der' });
    assert.ok('cose' in coseFromSpki(p521, -36));
    const wrong = coseFromSpki(p521, -7);
    assert.deepEqual(wrong, {
      reason: 'INVALID_PUBLIC_KEY',
      message: 'the public key is EC P-521, not a key of ES256 (-7)',
    });
  });
});
