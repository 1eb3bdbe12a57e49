// Webhook signing secrets at rest, on the whole service over its sockets, on SQLite and PostgreSQL: a
// webhook the admin API adds is stored sealed (the row never holds the secret; its deliveries are signed
// with the secret answered once), and so is a literal secret in an application's stored settings (the
// config file's, seeded); a row written in clear by an earlier version is sealed at the next start;
// after `local-keys rotate` and a restart every row is sealed under the new key, and deliveries of both are
// still signed with their own secrets. (The memory backend and the start-up pass's edge cases:
// test/webhooks/secret-box.test.ts.)
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startService, type RunningService } from '../../../src/main.js';
import { Database, type Db } from '../../../src/stores/sqlite/open.js';
import { minimalApp, tempDir, writeFile } from '../../config/support.js';
import { runCliCommand } from '../../support/cli-process.js';
import { registerUser } from '../../support/register-user.js';
import { startReceiver, verifySignature, type Delivery } from '../../support/webhook-receiver.js';
import { eventually } from '../../e2e/metadata-support.js';
import { freshSchema, POSTGRES_URL, sql, type TestSchema } from '../../scale/support/backends.js';

const sink = { write: () => true };
const LEGACY_SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const FILE_SECRET = `whsec_${randomBytes(24).toString('base64')}`;

interface Rows {
  secrets(): Promise<Map<string, string>>;
  insertClear(id: string, url: string, secret: string): Promise<void>;
  /** app-1's stored settings, as text. */
  applicationConfig(): Promise<string>;
  /** Writes `to` in place of `from` in app-1's stored settings (a row an earlier version wrote). */
  rewriteApplication(from: string, to: string): Promise<void>;
}

async function sqliteRows(path: string): Promise<Rows> {
  const run = <T>(work: (db: Db) => T): T => {
    const db = new Database(path);
    try {
      return work(db);
    } finally {
      db.close();
    }
  };
  return {
    secrets: async () =>
      new Map(
        run((db) => db.prepare('SELECT id, secret FROM webhooks').all() as { id: string; secret: string }[]).map(
          (r) => [r.id, r.secret],
        ),
      ),
    insertClear: async (id, url, secret) => {
      run((db) =>
        db
          .prepare('INSERT INTO webhooks (id, client_id, url, secret, events, created_at) VALUES (?, ?, ?, ?, NULL, 1)')
          .run(id, 'app-1', url, secret),
      );
    },
    applicationConfig: async () =>
      run(
        (db) =>
          (db.prepare("SELECT config FROM ops_applications WHERE client_id = 'app-1'").get() as { config: string })
            .config,
      ),
    rewriteApplication: async (from, to) => {
      run((db) =>
        db
          .prepare("UPDATE ops_applications SET config = replace(config, ?, ?) WHERE client_id = 'app-1'")
          .run(from, to),
      );
    },
  };
}

function postgresRows(schema: string): Rows {
  return {
    secrets: async () =>
      new Map(
        (await sql<{ id: string; secret: string }>(`SELECT id, secret FROM "${schema}".webhooks`)).map((r) => [
          r.id,
          r.secret,
        ]),
      ),
    insertClear: async (id, url, secret) => {
      await sql(
        `INSERT INTO "${schema}".webhooks (id, client_id, url, secret, events, created_at) VALUES ($1, 'app-1', $2, $3, NULL, 1)`,
        [id, url, secret],
      );
    },
    applicationConfig: async () =>
      (
        await sql<{ config: string }>(
          `SELECT config::text AS config FROM "${schema}".ops_applications WHERE client_id = 'app-1'`,
        )
      )[0]!.config,
    rewriteApplication: async (from, to) => {
      await sql(
        `UPDATE "${schema}".ops_applications SET config = replace(config::text, $1, $2)::json WHERE client_id = 'app-1'`,
        [from, to],
      );
    },
  };
}

const signedWith = (secret: string, d: Delivery) =>
  verifySignature(secret, d.id, String(d.timestamp), d.body, d.signature);

/** The newest local-blob key id of the secrets file. */
const newestKeyId = (secretsFile: string) =>
  (JSON.parse(readFileSync(secretsFile, 'utf8')) as { localBlobKeys: { id: string }[] }).localBlobKeys[0]!.id;

/**
 * The whole story on one database: added (sealed), a clear row from before, rotation and restart (all
 * sealed under the new key), deliveries signed with each webhook's own secret throughout.
 */
async function sealedAtRest(
  database: (dir: string) => string,
  rowsOf: (dir: string) => Promise<Rows>,
  sharedSecrets: boolean,
): Promise<void> {
  const added = await startReceiver('whsec_unknown');
  const legacy = await startReceiver(LEGACY_SECRET);
  const fromFile = await startReceiver(FILE_SECRET);
  const dir = tempDir('passkey-webhook-secrets-');
  const secretsFile = join(dir, 'data', 'secrets.json');
  const file = writeFile(dir, 'config.json', {
    listen: { host: '127.0.0.1', port: 0 },
    local: { enabled: false },
    admin: { port: 0 },
    database: database(dir),
    // The receivers are on 127.0.0.1.
    webhookDelivery: { allowLoopbackHttp: true, allowPrivateAddresses: true, timeoutMs: 2000 },
    applications: [minimalApp({ webhooks: [{ url: fromFile.url, secret: FILE_SECRET }] })],
  });
  if (sharedSecrets) {
    const init = await runCliCommand(['secrets', 'init', '--file', secretsFile], { cwd: dir });
    assert.equal(init.code, 0, init.stderr);
  }
  const made = await runCliCommand(['admin', 'token', 'create', 'secrets', '--config', file], { cwd: dir });
  const token = (JSON.parse(made.stdout) as { token: string }).token;
  const start = () => startService({ configFile: file, env: {}, cwd: dir, stdout: sink, stderr: sink });
  let running: RunningService | undefined;
  try {
    running = await start();
    const adminUrl = running.adminUrl!;
    const created = await fetch(`${adminUrl}/admin/applications/app-1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: added.url }),
      signal: AbortSignal.timeout(10_000),
    });
    assert.equal(created.status, 201);
    const { id, secret } = (await created.json()) as { id: string; secret: string };
    const rows = await rowsOf(dir);
    const firstKey = newestKeyId(secretsFile);
    const stored = (await rows.secrets()).get(id)!;
    assert.ok(stored.startsWith(`whenc:v1:${firstKey}:`), stored);
    assert.ok(!stored.includes(secret.slice('whsec_'.length)), 'the row never holds the secret');
    await registerUser(running.url, 'first');
    assert.ok(await eventually(() => added.accepted.length >= 1, 10_000), 'delivered');
    assert.ok(signedWith(secret, added.accepted[0]!), 'signed with the secret answered once');
    // The config file's literal secret, seeded into the application's stored settings: sealed there too.
    const settings = await rows.applicationConfig();
    const sealedInSettings = settings.match(/whenc:v1:[^"]+/)?.[0];
    assert.ok(sealedInSettings?.startsWith(`whenc:v1:${firstKey}:`), settings);
    assert.ok(!settings.includes(FILE_SECRET.slice('whsec_'.length)), 'the settings never hold the secret');
    assert.ok(await eventually(() => fromFile.accepted.length >= 1, 10_000), 'the file’s webhook delivered');
    assert.ok(fromFile.accepted[0]!.verified);
    await running.close();
    running = undefined;
    // As an earlier version stored it: in clear.
    await rows.rewriteApplication(sealedInSettings!, FILE_SECRET);
    assert.ok((await rows.applicationConfig()).includes(FILE_SECRET));

    // A row written in clear by an earlier version, and a rotation of the keys, before the next start.
    await rows.insertClear('wh_legacy', legacy.url, LEGACY_SECRET);
    const rotated = await runCliCommand(['local-keys', 'rotate', '--config', file], { cwd: dir });
    assert.equal(rotated.code, 0, rotated.stderr);
    const newKey = newestKeyId(secretsFile);
    assert.notEqual(newKey, firstKey);
    running = await start();
    assert.ok(
      await eventually(async () => {
        const all = [...(await rows.secrets()).values()];
        return all.length === 2 && all.every((value) => value.startsWith(`whenc:v1:${newKey}:`));
      }, 10_000),
      `every row sealed under the new key: ${JSON.stringify([...(await rows.secrets())])}`,
    );
    const resealed = await rows.applicationConfig();
    assert.ok(resealed.includes(`whenc:v1:${newKey}:`) && !resealed.includes(FILE_SECRET), resealed);
    await registerUser(running.url, 'second');
    assert.ok(await eventually(() => added.accepted.length >= 2 && legacy.accepted.length >= 1, 10_000));
    assert.ok(signedWith(secret, added.accepted[1]!), 'the same secret after the rotation');
    assert.ok(legacy.accepted[0]!.verified, 'the clear row’s secret, now sealed, still signs');
    assert.ok(await eventually(() => fromFile.accepted.length >= 2, 10_000));
    assert.ok(
      fromFile.accepted.every((d) => d.verified),
      'the file’s secret, sealed in the settings, still signs',
    );
  } finally {
    await running?.close();
    await added.close();
    await legacy.close();
    await fromFile.close();
  }
}

describe('webhook signing secrets at rest', () => {
  it('SQLite: sealed when added; a clear row sealed at start; all sealed again after a rotation', () =>
    sealedAtRest(
      (dir) => `sqlite:${join(dir, 'passkeys.db')}`,
      async (dir) => sqliteRows(join(dir, 'passkeys.db')),
      false,
    ));

  describe('PostgreSQL', () => {
    let schema: TestSchema | undefined;
    after(async () => schema?.drop());
    it('sealed when added; a clear row sealed at start; all sealed again after a rotation', async () => {
      schema = await freshSchema('webhook_secrets');
      const name = schema.schema;
      await sealedAtRest(
        () => `${POSTGRES_URL}?schema=${name}`,
        async () => postgresRows(name),
        true,
      );
    });
  });
});
