// Hostile files (docs/migration.md): each format's valid file, mutated a few hundred times from a fixed seed
// (bytes flipped, spans cut, JSON and CSV tokens slipped in, the end cut off), imported with every reader.
// Whatever the bytes, the import ends with a report, every refusal has a reason of the catalogue, and
// what the report says was imported is exactly what the store holds.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryCredentialStore } from '../../src/stores/memory/credentials.js';
import { READERS } from '../../src/transfer/formats.js';
import { runImport } from '../../src/transfer/importer.js';
import { IMPORT_FORMATS, REFUSAL_REASONS, type ImportFormat } from '../../src/transfer/record.js';
import { exportedPasskey } from '../support/imported-sign-in.js';
import {
  chunked,
  hankoList,
  hankoUser,
  keycloakRealm,
  keycloakUser,
  lineCsv,
  lineRow,
  simpleWebAuthnPasskey,
  sourcePasskey,
} from '../support/source-files.js';

const MUTATIONS = 250;
const TOKENS = [
  '{',
  '}',
  '[',
  ']',
  '"',
  ',',
  ':',
  '\n',
  '\r\n',
  '\\',
  '\\u0000',
  '\uFEFF',
  '\u2028',
  '1e999',
  '-0',
  'null',
].concat(['true', '"__proto__"', '"constructor"', '9007199254740993', '[[[[[[[[', '{"a":', ';', '""', 'NULL']);

/** One valid file of each format, two passkeys each. */
function validFiles(): Record<ImportFormat, string> {
  const pair = [sourcePasskey('ann', -7, 3), sourcePasskey('bob', -257, 9)];
  const passkeyServer = [exportedPasskey('ann', -7, 4), exportedPasskey('bob', -8)];
  return {
    'passkey-server': passkeyServer.map((p) => `${JSON.stringify(p.line)}\n`).join(''),
    simplewebauthn: JSON.stringify(pair.map(simpleWebAuthnPasskey)),
    keycloak: keycloakRealm([keycloakUser('ann', -7, 1), keycloakUser('bob', -257, 2)]),
    hanko: hankoList([hankoUser('ann', -7, 1), hankoUser('bob', -8, 2)]),
    'line-fido2-server': lineCsv(pair.map((p, i) => lineRow(p, i === 0 ? -7 : -257, i + 1))),
  };
}

/** A small deterministic generator (a linear congruential one): the same mutations on every run. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x80000000;
  };
}

function mutated(text: string, random: () => number): Buffer {
  let bytes = Buffer.from(text);
  const at = () => Math.floor(random() * (bytes.length + 1));
  for (let n = 1 + Math.floor(random() * 4); n > 0; n--) {
    const kind = random();
    const where = at();
    if (kind < 0.3 && bytes.length > 0) bytes[Math.min(where, bytes.length - 1)] = Math.floor(random() * 256);
    else if (kind < 0.5)
      bytes = Buffer.concat([bytes.subarray(0, where), bytes.subarray(where + Math.floor(random() * 24))]);
    else if (kind < 0.85) {
      const token = Buffer.from(TOKENS[Math.floor(random() * TOKENS.length)]!);
      bytes = Buffer.concat([bytes.subarray(0, where), token, bytes.subarray(where)]);
    } else bytes = bytes.subarray(0, where);
  }
  return bytes;
}

describe('import of mutated files', () => {
  const files = validFiles();
  for (const format of IMPORT_FORMATS) {
    it(`${format}: ${MUTATIONS} mutations of a valid file each end in a report that matches the store`, async () => {
      const random = generator(format.length * 7919);
      for (let i = 0; i <= MUTATIONS; i++) {
        const input = i === 0 ? Buffer.from(files[format]) : mutated(files[format], random);
        const store = new MemoryCredentialStore();
        const report = await runImport(READERS[format]!(chunked(input, 37)), {
          application: { clientId: 'fuzz', domain: 'idp.example.test', algorithms: [-7, -257, -8, -48] },
          credentials: store,
          derive: (username) => Buffer.from(username).toString('base64url').slice(0, 64),
          now: () => Date.UTC(2026, 10, 28),
          dryRun: false,
          maxPasskeysPerUser: 100,
        });
        const place = `mutation ${i}: ${JSON.stringify(input.toString('latin1'))}`;
        if (i === 0) assert.deepEqual([report.imported, report.refused], [2, []], `the valid ${format} file`);
        for (const refusal of report.refused) {
          assert.ok(Object.hasOwn(REFUSAL_REASONS, refusal.reason), place);
          assert.equal(typeof refusal.message, 'string', place);
        }
        const stored = await store.listByApplication('fuzz', { limit: 1000 });
        assert.equal(stored.length, report.imported, place);
      }
    });
  }
});
