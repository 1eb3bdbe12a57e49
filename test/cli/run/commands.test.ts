// The compiled command line's maintenance commands, spawned as users run them: migrate, local-keys
// rotate, secrets init, apps list.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { minimalApp, tempDir } from '../../config/support.js';
import { runCliCommand } from '../../support/cli-process.js';
import { configDir } from '../support.js';

describe('cli: migrate, local-keys rotate, secrets init, apps list', () => {
  it('migrate applies the SQLite migrations once', async () => {
    const { dir, file } = configDir();
    const first = await runCliCommand(['migrate', '--config', file], { cwd: dir });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /schema version 0 → \d+ \(applied: 1 /);
    const second = await runCliCommand(['migrate', '--config', file], { cwd: dir });
    assert.match(second.stdout, /is up to date/);
  });

  it('local-keys rotate adds a key to the secrets file; without a file it fails clearly', async () => {
    const { dir, file } = configDir();
    const missing = await runCliCommand(['local-keys', 'rotate', '--config', file], { cwd: dir });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /does not exist/);
    assert.equal((await runCliCommand(['secrets', 'init', '--config', file], { cwd: dir })).code, 0);
    const rotated = await runCliCommand(['local-keys', 'rotate', '--config', file], { cwd: dir });
    assert.equal(rotated.code, 0, rotated.stderr);
    const id = /added local-blob key (\S+)/.exec(rotated.stdout)?.[1];
    const keys = (
      JSON.parse(readFileSync(join(dir, 'data', 'secrets.json'), 'utf8')) as { localBlobKeys: { id: string }[] }
    ).localBlobKeys;
    assert.equal(keys.length, 2);
    assert.equal(keys[0]!.id, id);
  });

  it('secrets init --file creates a file once and never overwrites it', async () => {
    const cwd = tempDir();
    assert.equal((await runCliCommand(['secrets', 'init', '--file', 'keys/s.json'], { cwd })).code, 0);
    assert.ok(existsSync(join(cwd, 'keys', 's.json')));
    const again = await runCliCommand(['secrets', 'init', '--file', 'keys/s.json'], { cwd });
    assert.equal(again.code, 1);
    assert.match(again.stderr, /exists already/);
  });

  it('apps list, as text and as JSON', async () => {
    const { dir, file } = configDir({
      applications: [minimalApp(), minimalApp({ clientId: 'app-2', name: 'Two', variants: ['local'], origins: [] })],
    });
    const text = await runCliCommand(['apps', 'list', '--config', file], { cwd: dir });
    assert.equal(text.code, 0);
    assert.match(text.stdout, /app-1 {2}App One/);
    assert.match(text.stdout, /app-2 {2}Two\n {2}domain: +idp\.example\.test\n {2}variants: +local/);
    const json = await runCliCommand(['apps', 'list', '--json', '--config', file], { cwd: dir });
    assert.deepEqual(
      (JSON.parse(json.stdout) as { clientId: string }[]).map((a) => a.clientId),
      ['app-1', 'app-2'],
    );
  });
});
