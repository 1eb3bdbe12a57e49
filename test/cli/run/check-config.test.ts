// The compiled command line, spawned as users run it: check-config, and wrong calls (exit 2 with the usage).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { minimalApp, tempDir } from '../../config/support.js';
import { runCliCommand } from '../../support/cli-process.js';
import { configDir } from '../support.js';

describe('cli: check-config', () => {
  it('a valid file: exit 0 and a summary', async () => {
    const { dir, file } = configDir();
    const result = await runCliCommand(['check-config', '--config', file], { cwd: dir });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /configuration OK/);
    assert.match(result.stdout, /applications: app-1/);
    assert.match(result.stdout, /answer floor: 5 ms\n/);
  });

  it('the answer floor as set, 0 as off', async () => {
    for (const [floor, said] of [
      ['0', 'off'],
      ['250', '250 ms'],
    ] as const) {
      const { dir, file } = configDir();
      const result = await runCliCommand(['check-config', '--config', file], {
        cwd: dir,
        env: { PASSKEY_ANSWER_FLOOR_MS: floor },
      });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, new RegExp(`answer floor: ${said}\\n`));
    }
  });

  it('the built-in default is valid', async () => {
    const result = await runCliCommand(['check-config'], { cwd: tempDir() });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /built-in defaults/);
    assert.match(result.stdout, /demo-client/);
  });

  it('every problem printed at once, exit 1', async () => {
    const { dir, file } = configDir({
      listen: { port: 'x' },
      vendor: 'a b',
      applications: [minimalApp({ domain: 'BAD_' }), minimalApp()],
    });
    const result = await runCliCommand(['check-config', '--config', file], {
      cwd: dir,
      env: { PASSKEY_LOCAL_ENABLED: 'perhaps' },
    });
    assert.equal(result.code, 1);
    for (const words of [
      '5 problems',
      'PASSKEY_LOCAL_ENABLED',
      'listen.port',
      'vendor',
      'applications[0].domain',
      'applications[1].clientId',
    ]) {
      assert.ok(result.stderr.includes(words), `${words} missing from:\n${result.stderr}`);
    }
    assert.ok(!/\n\s+at /.test(result.stderr), 'no stack trace');
  });

  it('a missing file: exit 1 with the reason', async () => {
    const result = await runCliCommand(['check-config', '--config', 'nope.json'], { cwd: tempDir() });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /cannot read the config file \(ENOENT\)/);
  });
});

describe('cli: bad calls exit 2 with the usage', () => {
  for (const args of [
    ['frobnicate'],
    ['check-config', '--colour'],
    ['check-config', 'extra'],
    ['serve', '--port', 'abc'],
    ['serve', '--port', '70000'],
    ['local-keys'],
    ['apps', 'remove'],
    ['secrets', 'init', '--file', ''],
    ['check-config', '--config'],
  ]) {
    it(args.join(' '), async () => {
      const result = await runCliCommand(args, { cwd: tempDir() });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /Usage: passkey-server/);
    });
  }

  it('help prints the usage, exit 0', async () => {
    const result = await runCliCommand(['help'], { cwd: tempDir() });
    assert.equal(result.code, 0);
    assert.match(result.stdout, /check-config/);
  });
});
