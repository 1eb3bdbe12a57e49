// `serve` spawned as users run it: starts from a config file or the built-in default, answers, applies
// the environment's overrides and its flags, stops gracefully on SIGTERM and SIGINT; the SQLite writer mode
// `auto` resolves by the cores the process may use.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../config/support.js';
import { startServe } from '../../support/cli-process.js';
import { configDir, registrationOptions } from '../support.js';

describe('cli: serve, the SQLite writer', () => {
  it('sqliteWriter auto: the writer thread with two or more cores, inline when taskset confines the process to one', async () => {
    const { file } = configDir({ local: { enabled: false } });
    const started = (text: string) =>
      /"sqliteWriter":"(\w+)"/.exec(text.split('\n').find((line) => line.includes('service started')) ?? '')?.[1];
    const free = await startServe(['--config', file], { cwd: tempDir() });
    assert.equal(await free.stop(), 0);
    assert.equal(started(free.stdout() + free.stderr()), availableParallelism() >= 2 ? 'thread' : 'inline');
    const pinned = await startServe(['--config', file], { cwd: tempDir(), wrapper: ['taskset', '-c', '0'] });
    assert.equal((await registrationOptions(pinned.url)).status, 200);
    assert.equal(await pinned.stop(), 0);
    assert.equal(started(pinned.stdout() + pinned.stderr()), 'inline');
  });
});

describe('cli: serve', () => {
  it('starts from a config file on port 0, answers, and stops gracefully on SIGTERM', async () => {
    const { dir, file } = configDir();
    const served = await startServe(['--config', file], { cwd: tempDir() });
    assert.match(served.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.doesNotMatch(served.url, /:0$/, 'the real bound port is printed');
    const answer = await registrationOptions(served.url);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.status, 'ok');
    assert.equal(await served.stop('SIGTERM'), 0);
    assert.match(served.stderr(), /local variant is enabled|LOCAL variant is ENABLED/);
    assert.ok(existsSync(join(dir, 'data', 'fido2.db')), 'SQLite file next to the config file');
    assert.equal(
      (JSON.parse(readFileSync(join(dir, 'data', 'secrets.json'), 'utf8')) as { version: number }).version,
      1,
    );
  });

  it('stops on SIGINT too, and the secrets generated at the first start are kept at the next', async () => {
    const { dir, file } = configDir();
    const first = await startServe(['--config', file], { cwd: dir });
    assert.equal(await first.stop('SIGINT'), 0);
    const secrets = readFileSync(join(dir, 'data', 'secrets.json'), 'utf8');
    const second = await startServe(['--config', file], { cwd: dir });
    assert.equal(await second.stop(), 0);
    assert.equal(readFileSync(join(dir, 'data', 'secrets.json'), 'utf8'), secrets);
  });

  it('without a config: the built-in default (SQLite in ./data, demo application), --port and --no-demo', async () => {
    const cwd = tempDir();
    const served = await startServe(['--port', '0', '--no-demo'], { cwd });
    const answer = await registrationOptions(
      served.url,
      'demo-client',
      'https://demo.localhost:8443',
      'alice#demo.localhost',
    );
    assert.equal(answer.body.status, 'ok', JSON.stringify(answer.body));
    assert.equal(await served.stop(), 0);
    assert.ok(existsSync(join(cwd, 'data', 'fido2.db')));
    assert.doesNotMatch(served.stdout(), /demo page/);
  });

  it('environment overrides apply (PASSKEY_PORT=0, PASSKEY_LOCAL_ENABLED=false: no warning)', async () => {
    const { dir, file } = configDir({ listen: { port: 1 } });
    const served = await startServe(['--config', file], {
      cwd: dir,
      env: { PASSKEY_PORT: '0', PASSKEY_LOCAL_ENABLED: 'false' },
    });
    assert.equal(await served.stop(), 0);
    assert.doesNotMatch(served.stderr(), /LOCAL variant is ENABLED/);
  });
});
