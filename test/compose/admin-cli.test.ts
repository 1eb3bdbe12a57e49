// `passkey-server admin …` from a real config file: SQLite database, token file in the data folder,
// the config file's applications seeded, changes persisted for the next command.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAdminCli } from '../../src/admin/cli.js';
import { adminCliDeps } from '../../src/compose/admin-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'ops-cli-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const configFile = join(dir, 'passkey.json');
writeFileSync(
  configFile,
  JSON.stringify({
    dataDir: './data',
    database: 'sqlite:./data/fido2.db',
    applications: [
      {
        clientId: 'file-app',
        name: 'From the file',
        domain: 'file.example.test',
        origins: ['https://file.example.test'],
        variants: ['standard', 'local'],
      },
    ],
  }),
);

async function run(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runAdminCli(
    [...args, '--config', configFile],
    {
      stdout: {
        write: (t: string) => {
          stdout += t;
        },
      },
      stderr: {
        write: (t: string) => {
          stderr += t;
        },
      },
    },
    adminCliDeps({ env: {}, cwd: dir }),
  );
  return { code, stdout, stderr };
}

describe('admin CLI on a config file', () => {
  it('creates a token in the data folder, and manages applications in the SQLite database', async () => {
    const token = await run('token', 'create', 'ops');
    assert.equal(token.code, 0, token.stderr);
    assert.ok(existsSync(join(dir, 'data', 'admin-tokens.json')));

    const list = await run('app', 'list');
    assert.equal(list.code, 0, list.stderr);
    assert.deepEqual(
      JSON.parse(list.stdout).applications.map((a: { clientId: string; approved: boolean }) => [
        a.clientId,
        a.approved,
      ]),
      [['file-app', true]],
    );

    const created = await run('app', 'create', '--name', 'CLI app', '--domain', 'cli.example.test');
    assert.equal(created.code, 0, created.stderr);
    const id = JSON.parse(created.stdout).clientId as string;
    assert.equal((await run('app', 'disable', 'file-app')).code, 0);

    // A later command (a new process in real life) sees both changes.
    const after = JSON.parse((await run('app', 'list')).stdout).applications;
    assert.deepEqual(
      after.map((a: { clientId: string; disabled: boolean }) => [a.clientId, a.disabled]).sort(),
      [
        [id, false],
        ['file-app', true],
      ].sort(),
    );
    assert.equal(JSON.parse((await run('credential', 'list', 'file-app')).stdout).credentials.length, 0);
    const exported = await run('audit', 'export');
    assert.deepEqual(
      exported.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).action),
      ['application.create', 'application.disable'],
    );
  });
});
