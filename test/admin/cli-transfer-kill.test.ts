// A big import killed with SIGKILL in the middle (issue 34, docs/migration.md "Batches, and a kill -9 in the
// middle"), on a SQLite file and on PostgreSQL: what is stored is whole batches, and the same command again
// skips them and imports the rest. Also the command's exit codes: 1 when a record was refused, 2 when called
// wrongly, and `-` reading standard input.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { minimalApp } from '../config/support.js';
import { CLI, cleanEnv, runCliCommand } from '../support/cli-process.js';
import { configDir } from '../cli/support.js';
import { exportedPasskey } from '../support/imported-sign-in.js';
import { openSqliteCredentialStore } from '../../src/stores/sqlite/credentials.js';
import { openPostgresCredentialStore } from '../../src/stores/postgres/open.js';
import type { CredentialStore } from '../../src/stores/types.js';
import { freshSchema, POSTGRES_URL, type TestSchema } from '../scale/support/backends.js';
import { IMPORT_BATCH_SIZE } from '../../src/transfer/importer.js';

/** Records in the big file: enough that the import is still running when the test has seen two batches. */
const RECORDS = 60_000;
/** Bound on the wait for the first batches (polling every 5 ms). */
const WAIT_MS = 60_000;

/** RECORDS passkeys of as many users, one key shared (a valid point; the import checks each record). */
function bigFile(): string {
  const { line } = exportedPasskey('template', -7);
  const lines: string[] = [];
  for (let i = 0; i < RECORDS; i++) {
    lines.push(
      JSON.stringify({
        ...line,
        username: `user${i}`,
        userHandle: randomBytes(16).toString('base64url'),
        credentialId: randomBytes(16).toString('base64url'),
      }),
    );
  }
  return `${lines.join('\n')}\n`;
}

const count = async (store: CredentialStore) => (await store.countByAlgorithms('app-1', [-7])).credentials;

const BACKENDS = [
  {
    name: 'SQLite',
    setUp: async () => {
      const config = configDir({ local: { enabled: false }, database: 'sqlite:./passkeys.db' });
      return { config, open: () => openSqliteCredentialStore(join(config.dir, 'passkeys.db')), drop: async () => {} };
    },
  },
  {
    name: 'PostgreSQL',
    setUp: async () => {
      const schema: TestSchema = await freshSchema('import');
      const config = configDir({
        local: { enabled: false },
        database: `${POSTGRES_URL}?schema=${schema.schema}`,
        secretsFile: './secrets.json',
      });
      // PostgreSQL instances share their secrets: never generated on their own there.
      const init = await runCliCommand(['secrets', 'init', '--file', join(config.dir, 'secrets.json')], {
        cwd: config.dir,
      });
      assert.equal(init.code, 0, init.stderr);
      return {
        config,
        open: () => openPostgresCredentialStore(POSTGRES_URL, { schema: schema.schema }),
        drop: () => schema.drop(),
      };
    },
  },
];

const text = bigFile();

for (const backend of BACKENDS) {
  describe(`admin CLI: a big import killed in the middle, then run again (${backend.name})`, () => {
    const drops: (() => Promise<void>)[] = [];
    after(async () => {
      for (const drop of drops) await drop();
    });

    it('stores whole batches; the same command again completes the import', async () => {
      const { config, open, drop } = await backend.setUp();
      drops.push(drop);
      writeFileSync(join(config.dir, 'big.jsonl'), text);
      const args = ['admin', 'credential', 'import', 'app-1', '--from', 'passkey-server', 'big.jsonl'];
      // The schema (and the application) exist before the watcher opens the store.
      const dry = await runCliCommand(['admin', 'app', 'show', 'app-1', '--config', config.file], { cwd: config.dir });
      assert.equal(dry.code, 0, dry.stderr);
      const store = await open();
      try {
        const child = spawn(process.execPath, [CLI, ...args, '--config', config.file], {
          cwd: config.dir,
          env: cleanEnv(),
          stdio: 'ignore',
        });
        const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
        const deadline = Date.now() + WAIT_MS;
        while ((await count(store)) < 2 * IMPORT_BATCH_SIZE && Date.now() < deadline) await sleep(5);
        assert.ok(child.kill('SIGKILL'), 'the import was still running');
        assert.equal(await exited, null, 'killed, not finished');

        const stored = await count(store);
        assert.ok(stored >= 2 * IMPORT_BATCH_SIZE && stored < RECORDS, `${stored} stored`);
        assert.equal(stored % IMPORT_BATCH_SIZE, 0, `whole batches only: ${stored}`);

        const again = await runCliCommand([...args, '--config', config.file], { cwd: config.dir, limitMs: 180_000 });
        assert.equal(again.code, 0, again.stderr);
        assert.deepEqual(JSON.parse(again.stdout), {
          imported: RECORDS - stored,
          skipped: stored,
          refused: [],
          dryRun: false,
        });
        assert.equal(await count(store), RECORDS);
      } finally {
        await store.close();
      }
    });
  });
}

describe('admin CLI: credential import exit codes and standard input', () => {
  const config = configDir({ local: { enabled: false }, applications: [minimalApp()] });
  const admin = (args: string[], input?: string) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [CLI, 'admin', ...args, '--config', config.file], {
        cwd: config.dir,
        env: cleanEnv(),
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
      });
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
      });
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(input ?? '');
    });

  it('reads `-` from standard input and exits 1 when a record was refused, 2 when called wrongly', async () => {
    const good = JSON.stringify(exportedPasskey('ann', -7).line);
    const refused = await admin(['credential', 'import', 'app-1', '--from', 'passkey-server', '-'], `${good}\n{}\n`);
    assert.equal(refused.code, 1, refused.stderr);
    const report = JSON.parse(refused.stdout);
    assert.deepEqual([report.imported, report.refused[0].line, report.refused[0].reason], [1, 2, 'MALFORMED_RECORD']);

    const noFormat = await admin(['credential', 'import', 'app-1', '-']);
    assert.equal(noFormat.code, 2);
    assert.match(noFormat.stderr, /--from <format> is required/);
    const unknown = await admin(['credential', 'import', 'app-1', '--from', 'ldif', '-']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /INVALID_REQUEST/);
    const missing = await admin(['credential', 'import', 'app-1', '--from', 'passkey-server', 'nowhere.jsonl']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /nowhere\.jsonl/);
  });
});
