// The import (src/transfer/importer.ts) on every credential store: real keys in the passkey-server format,
// read from a stream cut at odd places, every refusal reason with its line, the dry run reporting what the
// real run then does, the re-run skipping everything, duplicates across batch boundaries, and a user the
// service already knows under its derived handle.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { deriveUserHandle } from '../../src/ceremonies/user-handle.js';
import { runImport, MAX_LISTED_REFUSALS, type ImportRun } from '../../src/transfer/importer.js';
import { readPasskeyServer } from '../../src/transfer/passkey-server.js';
import type { SourceItem, SourceRecord } from '../../src/transfer/record.js';
import { encodeCbor } from '../../src/webauthn/cbor-encode.js';
import { MemoryCredentialStore } from '../../src/stores/memory/credentials.js';
import type { CredentialStore } from '../../src/stores/types.js';
import { CREDENTIAL_STORES, type OpenedCredentialStore } from '../support/credential-stores.js';
import { credential } from '../support/admin-fixtures.js';
import { exportedPasskey } from '../support/imported-sign-in.js';
import { freshClientId } from '../stores/contract.js';

const KEY = Buffer.alloc(32, 9);
const DOMAIN = 'idp.example.test';
const T0 = Date.UTC(2026, 10, 28, 8, 0, 0);

/** The text as a stream of 61-byte chunks: lines (and UTF-8 sequences) are cut anywhere. */
async function* chunked(text: string): AsyncIterable<Uint8Array> {
  const bytes = Buffer.from(text, 'utf8');
  for (let at = 0; at < bytes.length; at += 61) yield bytes.subarray(at, at + 61);
}

function run(
  store: ImportRun['credentials'],
  clientId: string,
  items: AsyncIterable<SourceItem>,
  dryRun: boolean,
  maxPasskeysPerUser?: number,
) {
  return runImport(items, {
    ...(maxPasskeysPerUser === undefined ? {} : { maxPasskeysPerUser }),
    application: { clientId, domain: DOMAIN, algorithms: [-7, -257, -8, -48] },
    credentials: store,
    derive: (username) => deriveUserHandle(KEY, clientId, username),
    now: () => T0,
    dryRun,
    batchSize: 3,
  });
}

const importText = (store: CredentialStore, clientId: string, text: string, dryRun: boolean, max?: number) =>
  run(store, clientId, readPasskeyServer(chunked(text)), dryRun, max);

/** A COSE key map as bytes (for keys that are wrong on purpose). */
const cose = (entries: [number, number | Buffer][]) => encodeCbor(new Map(entries)).toString('base64url');

const ann = exportedPasskey('ann', -7, 41);
const bob = exportedPasskey('bob', -257, 7);
const carol = exportedPasskey('carol#idp.example.test', -48, 3);
const dave = exportedPasskey('dave', -8);
const other = exportedPasskey('zed', -7);
const es384 = exportedPasskey('erin', -35);
const with_ = (line: Record<string, unknown>, changes: Record<string, unknown>) => ({ ...line, ...changes });
const offCurve = (() => {
  const x = randomBytes(32);
  return cose([
    [1, 2],
    [3, -7],
    [-1, 1],
    [-2, x],
    [-3, Buffer.alloc(32, 1)],
  ]);
})();

/** The file, and the refusals (line, reason) it must give. */
const LINES: [unknown, string | null][] = [
  [ann.line, null],
  ['not json {', 'MALFORMED_RECORD'],
  [with_(other.line, { publicKey: undefined }), 'MALFORMED_RECORD'],
  [with_(other.line, { publicKey: offCurve }), 'INVALID_PUBLIC_KEY'],
  [es384.line, 'ALGORITHM_NOT_ALLOWED'],
  [with_(other.line, { username: 'zed#other.example.org' }), 'USERNAME_DOMAIN_MISMATCH'],
  [with_(other.line, { credentialId: ann.line.credentialId }), 'CREDENTIAL_ID_CONFLICT'],
  [with_(other.line, { username: 'ann', userHandle: randomBytes(16).toString('base64url') }), 'USER_HANDLE_CONFLICT'],
  [with_(other.line, { userHandle: ann.line.userHandle }), 'USER_HANDLE_CONFLICT'],
  [ann.line, null], // the same passkey again: skipped
  [bob.line, null],
  [with_(other.line, { signCount: -1 }), 'MALFORMED_RECORD'],
  [
    with_(other.line, {
      publicKey: cose([
        [1, 3],
        [3, -257],
        [-1, Buffer.concat([Buffer.from([0xc1]), randomBytes(127)])],
        [-2, Buffer.from([1, 0, 1])],
      ]),
    }),
    'INVALID_PUBLIC_KEY',
  ],
  [
    with_(other.line, {
      publicKey: cose([
        [1, 7],
        [3, -48],
        [-1, randomBytes(100)],
      ]),
    }),
    'INVALID_PUBLIC_KEY',
  ],
  [with_(other.line, { favouriteColour: 'blue' }), 'MALFORMED_RECORD'],
  [carol.line, null],
  [dave.line, null],
  [with_(other.line, { userHandle: 'not base64url!' }), 'MALFORMED_RECORD'],
  [with_(other.line, { backupEligible: false, backupState: true }), 'MALFORMED_RECORD'],
];
const FILE = LINES.map(([line]) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\r\n');
const EXPECTED_REFUSALS = LINES.flatMap(([, reason], index) => (reason === null ? [] : [[index + 1, reason]]));

for (const kind of CREDENTIAL_STORES) {
  describe(`import of the passkey-server format: ${kind.name}`, () => {
    let opened: OpenedCredentialStore;
    before(async () => {
      opened = await kind.open();
    });
    after(() => opened.close());

    it('refuses each bad record with its line and reason, imports every other; the dry run said so first', async () => {
      const { store } = opened;
      const clientId = freshClientId();
      const dry = await importText(store, clientId, FILE, true);
      assert.deepEqual(
        dry.refused.map((r) => [r.line, r.reason]),
        EXPECTED_REFUSALS,
      );
      assert.deepEqual([dry.imported, dry.skipped, dry.dryRun], [4, 1, true]);
      assert.deepEqual(await store.listByApplication(clientId, { limit: 10 }), [], 'a dry run writes nothing');
      assert.equal(await store.importedUserHandle(clientId, 'ann#idp.example.test'), undefined);

      const real = await importText(store, clientId, FILE, false);
      assert.deepEqual(real, { ...dry, dryRun: false });
      for (const refusal of real.refused) assert.ok(refusal.message.length > 0);

      const stored = await store.listByApplication(clientId, { limit: 10 });
      assert.deepEqual(stored.map((c) => c.username).sort(), [
        'ann#idp.example.test',
        'bob#idp.example.test',
        'carol#idp.example.test',
        'dave#idp.example.test',
      ]);
      const annStored = stored.find((c) => c.username === 'ann#idp.example.test')!;
      assert.deepEqual(
        {
          userHandle: annStored.userHandle,
          signCount: annStored.signCount,
          algorithm: annStored.algorithm,
          attestation: [annStored.attestationFormat, annStored.attestationType, annStored.attestationTrusted],
          aaguid: annStored.aaguid,
          userVerified: annStored.userVerified,
          nickname: annStored.nickname,
          createdAt: annStored.createdAt,
        },
        {
          userHandle: ann.held.userHandle,
          signCount: 41,
          algorithm: -7,
          attestation: ['imported', 'none', false],
          aaguid: 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4',
          userVerified: false,
          nickname: "ann's phone",
          createdAt: Date.parse('2025-01-02T03:04:05.000Z'),
        },
      );
      assert.deepEqual(Buffer.from(annStored.publicKey), ann.held.cose);
      assert.equal(await store.importedUserHandle(clientId, 'ann#idp.example.test'), ann.held.userHandle);

      const again = await importText(store, clientId, FILE, false);
      assert.deepEqual(again, { imported: 0, skipped: 5, refused: real.refused, dryRun: false });
    });

    it('a user registered here under the derived handle: another handle is refused, the derived one imported', async () => {
      const { store } = opened;
      const clientId = freshClientId();
      const username = 'fay#idp.example.test';
      const derived = deriveUserHandle(KEY, clientId, username);
      await store.create(credential({ clientId, username, userHandle: derived }));
      const fay = exportedPasskey('fay', -7);
      const text = [
        JSON.stringify(fay.line),
        JSON.stringify(with_(exportedPasskey('fay', -7).line, { userHandle: derived })),
      ].join('\n');
      const report = await importText(store, clientId, text, false);
      assert.deepEqual(
        report.refused.map((r) => [r.line, r.reason]),
        [[1, 'USER_HANDLE_CONFLICT']],
      );
      assert.equal(report.imported, 1);
      assert.equal(await store.importedUserHandle(clientId, username), undefined, 'no kept handle: it is derived');
      assert.equal((await store.listByUser(clientId, derived)).length, 2);
    });

    it("refuses the passkeys beyond the application's limit per user, counting stored ones and the file's", async () => {
      const { store } = opened;
      const clientId = freshClientId();
      const gus = exportedPasskey('gus', -7);
      const more = (n: number) =>
        Array.from({ length: n }, () =>
          JSON.stringify(with_(gus.line, { credentialId: randomBytes(16).toString('base64url') })),
        );
      const first = await importText(store, clientId, [JSON.stringify(gus.line)].join('\n'), false, 3);
      assert.equal(first.imported, 1);
      // Four more of gus across two batches (3 a batch), and one of hal: gus may have two more.
      const text = [...more(4), JSON.stringify(exportedPasskey('hal', -7).line)].join('\n');
      const dry = await importText(store, clientId, text, true, 3);
      assert.deepEqual(
        dry.refused.map((r) => [r.line, r.reason]),
        [
          [3, 'PASSKEY_LIMIT_REACHED'],
          [4, 'PASSKEY_LIMIT_REACHED'],
        ],
      );
      assert.equal(dry.imported, 3);
      assert.deepEqual(await importText(store, clientId, text, false, 3), { ...dry, dryRun: false });
      assert.equal((await store.listByUser(clientId, gus.held.userHandle)).length, 3);
    });

    it('refuses a passkey whose user a registration brought to the limit between the read and the write', async () => {
      const { store } = opened;
      const clientId = freshClientId();
      const ivy = exportedPasskey('ivy', -7);
      assert.equal((await importText(store, clientId, JSON.stringify(ivy.line), false, 2)).imported, 1);
      // The batch is read with one passkey stored; before it is written, a registration takes the last place.
      let registered = false;
      const racing: ImportRun['credentials'] = {
        importLookup: async (...args) => {
          const lookup = await store.importLookup(...args);
          if (!registered) {
            registered = true;
            const registration = credential({ clientId, userHandle: ivy.held.userHandle, username: `ivy#${DOMAIN}` });
            assert.equal(await store.createCounted(registration, 2), 2);
          }
          return lookup;
        },
        importBatch: (...args) => store.importBatch(...args),
      };
      const another = with_(ivy.line, { credentialId: randomBytes(16).toString('base64url') });
      const report = await run(racing, clientId, readPasskeyServer(chunked(JSON.stringify(another))), false, 2);
      assert.deepEqual(
        report.refused.map((r) => [r.line, r.reason]),
        [[1, 'PASSKEY_LIMIT_REACHED']],
      );
      assert.deepEqual([report.imported, report.skipped], [0, 0]);
      assert.equal((await store.listByUser(clientId, ivy.held.userHandle)).length, 2);
    });
  });
}

/** A record as a reader of another format would hand it over. */
function source(over: Partial<SourceRecord>): SourceRecord {
  return {
    username: 'ann',
    userHandle: ann.held.userHandle,
    displayName: null,
    credentialId: randomBytes(16).toString('base64url'),
    publicKey: ann.held.cose,
    signCount: 0,
    transports: [],
    backupEligible: false,
    backupState: false,
    aaguid: '00000000-0000-0000-0000-000000000000',
    nickname: null,
    createdAt: null,
    lastUsedAt: null,
    rpId: null,
    residentKey: null,
    attestation: null,
    status: null,
    ...over,
  };
}

async function* items(records: readonly SourceRecord[]): AsyncIterable<SourceItem> {
  for (const [index, record] of records.entries()) yield { at: `$[${index}]`, record };
}

describe('the checks of any reader’s records', () => {
  it('applies the name rule, checks the stated RP ID and keeps JSON paths as places', async () => {
    const store = new MemoryCredentialStore();
    const clientId = freshClientId();
    const handle = () => randomBytes(16).toString('base64url');
    const report = await run(
      store,
      clientId,
      items([
        source({ username: 'ann', rpId: DOMAIN }),
        source({ username: 'bob#IDP.example.test', userHandle: handle() }),
        source({ username: 'cy#7', userHandle: handle() }),
        source({ username: 'dan', userHandle: handle(), rpId: 'old.example.org' }),
        source({ username: 'eve#localhost', userHandle: handle() }),
        source({ username: '#idp.example.test', userHandle: handle() }),
      ]),
      false,
    );
    assert.deepEqual(
      report.refused.map((r) => [r.line, r.reason]),
      [
        ['$[3]', 'RP_ID_MISMATCH'],
        ['$[4]', 'USERNAME_DOMAIN_MISMATCH'],
        ['$[5]', 'MALFORMED_RECORD'],
      ],
    );
    const names = (await store.listByApplication(clientId, { limit: 10 })).map((c) => c.username).sort();
    assert.deepEqual(names, ['ann#idp.example.test', 'bob#idp.example.test', 'cy#7#idp.example.test']);
  });

  it(`lists at most ${MAX_LISTED_REFUSALS} refusals, the last one counting the rest by reason`, async () => {
    const store = new MemoryCredentialStore();
    const text = Array.from({ length: MAX_LISTED_REFUSALS + 5 }, () => 'x').join('\n');
    const report = await importText(store, freshClientId(), text, true);
    assert.equal(report.refused.length, MAX_LISTED_REFUSALS);
    assert.match(report.refused.at(-1)!.message, /and 5 more refused records, not listed: MALFORMED_RECORD 5/);
  });
});
