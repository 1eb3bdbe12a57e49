// Issue 35 item 5 (the whole service over its sockets, on SQLite and on PostgreSQL): passkeys are marked as
// a metadata reload marks them (applications/compromised.ts) also when their application is enabled (a
// reload while it was disabled skipped it) and when its metadata changes, through the admin API, through the
// CLI, or through a config file the CLI seeds, and when passkeys are imported. The mark is then what the application's
// `compromisedAuthenticators: "refuse"` decides the next sign-in by (enforceStatusAtAuthentication is off).
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningService } from '../../src/main.js';
import { CLIENT_ID, DOMAIN } from '../scale/support/service.js';
import { freshSchema, POSTGRES_URL } from '../scale/support/backends.js';
import { runCliCommand } from '../support/cli-process.js';
import type { AdminCall } from '../support/admin-call.js';
import { startReloadingService } from '../support/reloading-service.js';
import { tempDir, writeFile } from '../config/support.js';
import { eventually, metadataFixture, MODEL_AAGUID, ModelUser, outcome } from '../e2e/metadata-support.js';
import { exportedPasskey, jsonLines } from '../support/imported-sign-in.js';

const STATUS = 'USER_KEY_REMOTE_COMPROMISE';
const MARKED = `/admin/applications/${CLIENT_ID}/marked-credentials`;

const BACKENDS: Record<string, () => Promise<string | undefined>> = {
  sqlite: async () => undefined,
  postgres: async () => {
    const schema = await freshSchema('compromised_marking');
    after(() => schema.drop());
    return `${POSTGRES_URL}?schema=${schema.schema}`;
  },
};

interface Setup {
  readonly dir: string;
  readonly file: string;
  readonly running: RunningService;
  readonly admin: AdminCall;
  /** Writes a BLOB reporting the model compromised next to the fixture's; returns its path. */
  readonly compromisedBlob: () => string;
  /** Puts a BLOB reporting the model compromised in place of the configured one and reloads it (as SIGHUP does). */
  readonly compromiseAndReload: () => Promise<void>;
  /** The configured policy with the fixture's BLOB (`attestation` of the config file). */
  readonly withMetadata: Record<string, unknown>;
  readonly cli: (...args: string[]) => Promise<void>;
}

/** The service on `database` (SQLite in the folder when undefined) with the fixture's application under `refuse`. */
async function setUp(database: string | undefined, metadata: boolean): Promise<Setup> {
  const dir = tempDir('passkey-marking-');
  const fixture = metadataFixture(dir);
  const [application] = fixture.applications as [Record<string, unknown>];
  const withMetadata = { metadata: fixture.blobFile, metadataRoots: [fixture.rootFile] };
  const file = writeFile(dir, 'config.json', {
    listen: { host: '127.0.0.1', port: 0 },
    admin: { port: 0 },
    applicationCacheMs: 0,
    dataDir: join(dir, 'data'),
    local: { enabled: false },
    demo: { enabled: false },
    ...(database === undefined ? {} : { database }),
    applications: [{ ...application, attestation: metadata ? withMetadata : {}, compromisedAuthenticators: 'refuse' }],
  });
  const cli = async (...args: string[]) => {
    const result = await runCliCommand([...args, '--config', file], { cwd: dir });
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
  };
  if (database !== undefined) await cli('secrets', 'init', '--file', join(dir, 'data', 'secrets.json'));
  const { running, admin } = await startReloadingService(file, dir);
  after(() => running.close());
  return {
    dir,
    file,
    running,
    admin,
    withMetadata,
    compromisedBlob: () => fixture.writeBlob('compromised.jwt', 2, true),
    compromiseAndReload: async () => {
      renameSync(fixture.writeBlob('newer.jwt', 2, true), fixture.blobFile);
      const report = await running.reloadMetadata();
      assert.deepEqual([report.ok, report.applications[0]?.serial], [true, 2], JSON.stringify(report));
    },
    cli,
  };
}

/** Alice registers with the fixture's model and signs in (not marked yet). */
async function aliceRegistered(setup: Setup): Promise<ModelUser> {
  const alice = new ModelUser('alice');
  assert.equal(outcome(await alice.register(setup.running.url)), 'ok');
  assert.equal(outcome(await alice.signIn(setup.running.url)), 'ok');
  assert.deepEqual((await setup.admin('GET', MARKED)).json.credentials, []);
  return alice;
}

/** The marked credentials, as [credentialId, username, status]. */
async function marked(admin: AdminCall): Promise<unknown[]> {
  const listed = await admin('GET', MARKED);
  assert.equal(listed.status, 200, JSON.stringify(listed.json));
  return listed.json.credentials.map((c: Record<string, unknown>) => [c.username, c.authenticatorStatus]);
}

/** Alice is marked, the marking audited, and her next sign-in refused with the error in the envelope. */
async function expectMarked(setup: Setup, alice: ModelUser): Promise<void> {
  assert.deepEqual(await marked(setup.admin), [[alice.username, STATUS]]);
  let audit: Record<string, unknown>[] = [];
  const read = async () => {
    audit = (await setup.admin('GET', '/admin/audit?action=authenticator.status-change')).json.events;
    return audit.length >= 1;
  };
  assert.ok(await eventually(read, 10_000));
  assert.deepEqual(
    audit.map((e) => [e.actor, e.target, e.details]),
    [['system:metadata', MODEL_AAGUID, { status: STATUS, credentials: 1 }]],
  );
  const refused = await alice.signIn(setup.running.url);
  assert.equal(refused.httpStatus, 400);
  assert.equal(outcome(refused), 'AUTHENTICATOR_STATUS_NOT_ACCEPTED');
}

for (const [name, open] of Object.entries(BACKENDS)) {
  describe(`enabling or changing an application marks its passkeys: ${name}`, () => {
    it('admin API: enabling marks what a reload skipped while the application was disabled', async () => {
      const setup = await setUp(await open(), true);
      const alice = await aliceRegistered(setup);
      assert.equal((await setup.admin('POST', `/admin/applications/${CLIENT_ID}/disable`)).status, 200);
      await setup.compromiseAndReload();
      assert.deepEqual(await marked(setup.admin), [], 'a reload skips a disabled application');

      const enabled = await setup.admin('POST', `/admin/applications/${CLIENT_ID}/enable`);
      assert.equal(enabled.status, 200, JSON.stringify(enabled.json));
      await expectMarked(setup, alice);
    });

    it('admin API: giving the application metadata that reports its model compromised marks at once', async () => {
      const setup = await setUp(await open(), false);
      const alice = await aliceRegistered(setup);
      const patched = await setup.admin('PATCH', `/admin/applications/${CLIENT_ID}`, {
        attestation: { ...setup.withMetadata, metadata: setup.compromisedBlob() },
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.json));
      await expectMarked(setup, alice);
    });

    it('CLI: `admin app enable` marks what a reload skipped while the application was disabled', async () => {
      const setup = await setUp(await open(), true);
      const alice = await aliceRegistered(setup);
      await setup.cli('admin', 'app', 'disable', CLIENT_ID);
      await setup.compromiseAndReload();
      assert.deepEqual(await marked(setup.admin), []);
      await setup.cli('admin', 'app', 'enable', CLIENT_ID);
      await expectMarked(setup, alice);
    });

    it('import: an imported passkey of a model the metadata reports compromised is marked at once', async () => {
      const setup = await setUp(await open(), true);
      await setup.compromiseAndReload();
      const file = join(setup.dir, 'passkeys.jsonl');
      writeFileSync(file, jsonLines([{ ...exportedPasskey('mallory', -7).line, aaguid: MODEL_AAGUID }]));
      await setup.cli('admin', 'credential', 'import', CLIENT_ID, '--from', 'passkey-server', file);
      assert.deepEqual(await marked(setup.admin), [[`mallory#${DOMAIN}`, STATUS]]);
    });

    it('config file: the metadata a changed file gives the application marks when the CLI seeds it', async () => {
      const setup = await setUp(await open(), false);
      const alice = await aliceRegistered(setup);
      const content = JSON.parse(readFileSync(setup.file, 'utf8'));
      content.applications[0].attestation = { ...setup.withMetadata, metadata: setup.compromisedBlob() };
      writeFileSync(setup.file, JSON.stringify(content));
      // Any admin command seeds the file's applications into the shared store first, as a start does.
      await setup.cli('admin', 'app', 'show', CLIENT_ID);
      await expectMarked(setup, alice);
    });
  });
}
