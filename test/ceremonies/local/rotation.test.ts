// Local-blob keys: generated into the data folder on first start, rotated with `local-keys rotate`
// (the newest key seals, every key opens), retired by removing a key, or given in PASSKEY_LOCAL_BLOB_KEYS.
// Blobs sealed before a rotation still sign in; blobs sealed after carry the new key id.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/run.js';
import {
  LOCAL_BLOB_KEYS_ENV,
  loadSecrets,
  writeSecretsFile,
  type Secrets,
  type SecretsFile,
} from '../../../src/secrets/load.js';
import type { Logger } from '../../../src/util/log.js';
import { applicationConfig, expectFailure, expectOk } from '../../support/harness.js';
import { LocalFlow, LocalRig, blobKeyId } from './support.js';

interface Folder {
  readonly dir: string;
  readonly configFile: string;
  readonly secretsFile: string;
  readonly logs: string[];
  load(env?: Record<string, string>): Secrets;
  cli(
    args: readonly string[],
    env?: Record<string, string>,
  ): Promise<{ code: number | undefined; stdout: string; stderr: string }>;
  close(): void;
}

/** A data folder with a config file, as `npm start -- --config <file>` would use it. */
function folder(): Folder {
  const dir = mkdtempSync(join(tmpdir(), 'passkey-local-keys-'));
  const configFile = join(dir, 'config.json');
  const app = applicationConfig();
  writeFileSync(
    configFile,
    JSON.stringify({
      dataDir: './data',
      local: { enabled: true },
      applications: [
        {
          clientId: app.clientId,
          name: app.name,
          domain: app.domain,
          origins: app.origins,
          variants: ['standard', 'local'],
        },
      ],
    }),
  );
  const secretsFile = join(dir, 'data', 'secrets.json');
  const logs: string[] = [];
  const log: Logger = {
    info: (fields, message) => logs.push(JSON.stringify({ fields, message })),
    warn: (fields, message) => logs.push(JSON.stringify({ fields, message })),
    error: (fields, message) => logs.push(JSON.stringify({ fields, message })),
  };
  return {
    dir,
    configFile,
    secretsFile,
    logs,
    load: (env = {}) =>
      loadSecrets({
        config: { secretsFile, database: { kind: 'sqlite', path: join(dir, 'data', 'fido2.db') } },
        env,
        randomBytes,
        log,
      }),
    cli: async (args, env = {}) => {
      let stdout = '';
      let stderr = '';
      const io = {
        stdout: {
          write: (chunk: string) => {
            stdout += chunk;
            return true;
          },
        },
        stderr: {
          write: (chunk: string) => {
            stderr += chunk;
            return true;
          },
        },
        env,
        cwd: dir,
      };
      const code = await runCli(args, io as never);
      return { code, stdout, stderr };
    },
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}

function assertNoKeyMaterial(text: string, secrets: Secrets): void {
  for (const key of [secrets.userHandleKey, ...secrets.localBlobKeys.map((k) => k.key)]) {
    for (const encoding of ['hex', 'base64', 'base64url'] as const) {
      assert.ok(!text.includes(key.toString(encoding)), 'key material in output');
    }
  }
}

describe('local-blob keys: generation, rotation, retirement', () => {
  it('the first start generates one key into the data folder (mode 0600), logging only its id', () => {
    const f = folder();
    try {
      const secrets = f.load();
      assert.equal(secrets.localBlobKeys.length, 1);
      assert.equal(secrets.localBlobKeys[0]!.key.length, 32);
      assert.equal(statSync(f.secretsFile).mode & 0o777, 0o600);
      assert.deepEqual(f.load().localBlobKeys, secrets.localBlobKeys, 'the next start reads the same key');
      assert.ok(f.logs.join('\n').includes(secrets.localBlobKeys[0]!.id));
      assertNoKeyMaterial(f.logs.join('\n'), secrets);
    } finally {
      f.close();
    }
  });

  it('`local-keys rotate`: blobs sealed before still sign in, new blobs carry the new key id, output holds no key', async () => {
    const f = folder();
    try {
      const before = f.load();
      const rig = new LocalRig({ secrets: before });
      const alice = new LocalFlow(rig, 'alice');
      const old = await alice.registered();
      assert.equal(blobKeyId(old.localhost), before.localBlobKeys[0]!.id);

      const run = await f.cli(['local-keys', 'rotate', '--config', f.configFile]);
      assert.equal(run.code, 0, run.stderr);
      const after = f.load();
      assert.equal(after.localBlobKeys.length, 2);
      assert.equal(after.localBlobKeys[1]!.id, before.localBlobKeys[0]!.id, 'the old key stays, second');
      const newId = after.localBlobKeys[0]!.id;
      assert.ok(run.stdout.includes(newId));
      assertNoKeyMaterial(run.stdout + run.stderr, after);
      assert.ok(after.userHandleKey.equals(before.userHandleKey), 'rotation leaves the user-handle key alone');

      rig.useSecrets(after); // the restart after rotation
      expectOk((await alice.authenticate(old)).res);
      const bob = new LocalFlow(rig, 'bob');
      const fresh = await bob.registered();
      assert.equal(blobKeyId(fresh.localhost), newId);
      expectOk((await bob.authenticate(fresh)).res);

      // Retire the old key: its blobs stop opening with a named error; the new ones keep working.
      const file = JSON.parse(readFileSync(f.secretsFile, 'utf8')) as SecretsFile;
      writeSecretsFile(f.secretsFile, { ...file, localBlobKeys: file.localBlobKeys.slice(0, 1) });
      rig.useSecrets(f.load());
      expectFailure((await alice.authenticate(old)).res, 'LOCAL_BLOB_KEY_UNKNOWN', 400);
      expectOk((await bob.authenticate(fresh)).res);
      assert.deepEqual(rig.store.calls, []);
    } finally {
      f.close();
    }
  });

  it('`local-keys rotate` twice keeps every older key, newest first', async () => {
    const f = folder();
    try {
      const first = f.load().localBlobKeys.map((k) => k.id);
      assert.equal((await f.cli(['local-keys', 'rotate', '--config', f.configFile])).code, 0);
      assert.equal((await f.cli(['local-keys', 'rotate', '--config', f.configFile])).code, 0);
      const ids = f.load().localBlobKeys.map((k) => k.id);
      assert.equal(ids.length, 3);
      assert.deepEqual(ids.slice(2), first);
      assert.equal(new Set(ids).size, 3);
    } finally {
      f.close();
    }
  });

  it(`${LOCAL_BLOB_KEYS_ENV}="new:<key>,old:<key>": the first seals, both open`, async () => {
    const f = folder();
    try {
      const oldKey = randomBytes(32);
      const newKey = randomBytes(32);
      const rig = new LocalRig({ secrets: f.load({ [LOCAL_BLOB_KEYS_ENV]: `old:${oldKey.toString('base64')}` }) });
      const alice = new LocalFlow(rig, 'alice');
      const old = await alice.registered();
      assert.equal(blobKeyId(old.localhost), 'old');

      rig.useSecrets(
        f.load({ [LOCAL_BLOB_KEYS_ENV]: `new:${newKey.toString('base64url')},old:${oldKey.toString('base64')}` }),
      );
      expectOk((await alice.authenticate(old)).res);
      const fresh = await new LocalFlow(rig, 'bob').registered();
      assert.equal(blobKeyId(fresh.localhost), 'new');
    } finally {
      f.close();
    }
  });

  it("two deployments with different keys cannot open each other's blobs, even under the same key id", async () => {
    const one = new LocalRig({
      secrets: { userHandleKey: Buffer.alloc(32, 1), localBlobKeys: [{ id: 'k1', key: randomBytes(32) }] },
    });
    const other = new LocalRig({
      secrets: { userHandleKey: Buffer.alloc(32, 1), localBlobKeys: [{ id: 'k1', key: randomBytes(32) }] },
    });
    const flow = new LocalFlow(one, 'alice');
    const kept = await flow.registered();
    const moved = new LocalFlow(other, 'alice');
    moved.authenticator.credentials.push(...flow.authenticator.credentials);
    expectFailure((await moved.authenticate(kept)).res, 'LOCAL_BLOB_TAMPERED', 400);
  });
});
