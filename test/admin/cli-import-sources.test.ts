// `passkey-server admin credential import --from simplewebauthn|keycloak|hanko|line-fido2-server` (issue 34,
// docs/migration.md) against a running service: passkeys an authenticator already holds (ES256, RS256, EdDSA,
// ES384), written the way each source system writes them (test/support/source-files.ts), imported by the CLI
// as a child process on the service's SQLite file, then signed in with over its socket by name and without a
// name, the user handle being the one the old system gave the authenticator; a record for another RP ID is
// refused; the same file again is all skipped.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configDir } from '../cli/support.js';
import { minimalApp } from '../config/support.js';
import { runCliCommand, startServe, type ServeProcess } from '../support/cli-process.js';
import { DOMAIN, signIn } from '../support/imported-sign-in.js';
import {
  hankoList,
  hankoUser,
  keycloakRealm,
  keycloakUser,
  lineCsv,
  lineRow,
  simpleWebAuthnPasskey,
  type SourcePasskey,
  sourcePasskey,
} from '../support/source-files.js';

const ALGS = [-7, -257, -8, -35];
const APP = minimalApp({ algorithms: ALGS });

describe('admin CLI: credential import from other systems, on a running service', () => {
  const config = configDir({ local: { enabled: false }, applications: [APP] });
  const admin = (...args: string[]) => runCliCommand(['admin', ...args, '--config', config.file], { cwd: config.dir });
  const second = configDir({ local: { enabled: false }, applications: [APP] });
  let served: ServeProcess;
  let other: ServeProcess;

  const simple = ALGS.map((alg, i) => sourcePasskey(`swa-${i}`, alg, i * 3));
  const keycloak = ALGS.map((alg, i) => keycloakUser(`kc-${i}`, alg, i));
  const hanko = ALGS.map((alg, i) => hankoUser(`hanko-${i}`, alg, i + 1));
  const line = ALGS.map((alg, i) => sourcePasskey(`line-${i}`, alg, 100 + i));
  const lineOther = sourcePasskey('line-other', -7, 0);
  const files: Record<
    string,
    { name: string; text: string; passkeys: readonly SourcePasskey[]; fullName: (u: string) => string }
  > = {
    simplewebauthn: {
      name: 'passkeys.jsonl',
      text: simple.map((p) => `${JSON.stringify(simpleWebAuthnPasskey(p))}\n`).join(''),
      passkeys: simple,
      fullName: (u) => `${u}#${DOMAIN}`,
    },
    keycloak: {
      name: 'realm.json',
      text: keycloakRealm(keycloak),
      passkeys: keycloak,
      fullName: (u) => `${u}#${DOMAIN}`,
    },
    hanko: {
      name: 'hanko.json',
      text: hankoList(hanko),
      passkeys: hanko,
      fullName: (u) => `${u}@example.com#${DOMAIN}`,
    },
    'line-fido2-server': {
      name: 'user_key.csv',
      text: lineCsv([...line.map((p, i) => lineRow(p, ALGS[i]!, i + 1)), lineRow(lineOther, -7, 9, 'old.example.com')]),
      passkeys: line,
      fullName: (u) => `${u}#${DOMAIN}`,
    },
  };

  before(async () => {
    for (const file of Object.values(files)) writeFileSync(join(config.dir, file.name), file.text);
    served = await startServe(['--config', config.file], { cwd: config.dir });
  });
  after(async () => {
    await served?.stop();
    await other?.stop();
  });

  for (const [format, file] of Object.entries(files)) {
    it(`--from ${format}: every passkey signs in by name and without a name; the same file again is skipped`, async () => {
      const run = await admin('credential', 'import', 'app-1', '--from', format, file.name);
      const report = JSON.parse(run.stdout);
      const refused = format === 'line-fido2-server' ? 1 : 0;
      assert.equal(run.code, refused === 0 ? 0 : 1, run.stderr);
      assert.equal(report.imported, file.passkeys.length, run.stdout);
      assert.equal(report.refused.length, refused, run.stdout);
      if (refused > 0)
        assert.deepEqual(report.refused[0], {
          line: 6,
          reason: 'RP_ID_MISMATCH',
          message: `the record's RP ID is old.example.com, not ${DOMAIN}`,
        });

      for (const { held, user, signCount } of file.passkeys) {
        const name = file.fullName(user);
        const byName = await signIn(served.url, held, name);
        assert.equal(byName.status, 200, JSON.stringify(byName.body));
        assert.equal(byName.body.userHandle, held.userHandle);
        assert.equal(byName.body.signCount, signCount + 1);
        const nameless = await signIn(served.url, held, null);
        assert.equal(nameless.status, 200, JSON.stringify(nameless.body));
        assert.equal(nameless.body.username, name);
        assert.equal(nameless.body.userHandle, held.userHandle);
      }

      const again = await admin('credential', 'import', 'app-1', '--from', format, file.name);
      const second = JSON.parse(again.stdout);
      assert.equal(second.imported, 0, again.stdout);
      assert.equal(second.skipped, file.passkeys.length, again.stdout);
    });
  }

  it('--to hanko, imported into an empty instance: every passkey signs in there under its handle', async () => {
    const exported = await admin(
      'credential',
      'export',
      'app-1',
      '--to',
      'hanko',
      '--output',
      join(second.dir, 'hanko.json'),
    );
    assert.equal(exported.code, 0, exported.stderr);
    const run = await runCliCommand(
      ['admin', 'credential', 'import', 'app-1', '--from', 'hanko', 'hanko.json', '--config', second.file],
      { cwd: second.dir },
    );
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const everyone = Object.values(files).flatMap((file) =>
      file.passkeys.map((p) => ({ ...p, name: file.fullName(p.user) })),
    );
    assert.deepEqual(JSON.parse(run.stdout), { imported: everyone.length, skipped: 0, refused: [], dryRun: false });
    other = await startServe(['--config', second.file], { cwd: second.dir });
    for (const { held, name } of everyone) {
      const byName = await signIn(other.url, held, name);
      assert.equal(byName.status, 200, JSON.stringify(byName.body));
      const nameless = await signIn(other.url, held, null);
      assert.equal(nameless.status, 200, JSON.stringify(nameless.body));
      assert.equal(nameless.body.userHandle, held.userHandle);
      assert.equal(nameless.body.username, name);
    }
  });
});
