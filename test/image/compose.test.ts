// compose.yaml (PostgreSQL, Redis, a one-off migrate, two replicas) read by Debian's docker-compose without a
// daemon: `config` renders it only with the three secrets set, names the services and volumes the docs
// give, and mounts the config file test/image/replicas.test.ts runs the replicas with.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { REPO, runCommand } from './support/podman.js';

const SECRETS = {
  POSTGRES_PASSWORD: 'a1b2c3',
  PASSKEY_USER_HANDLE_KEY: 'dXNlci1oYW5kbGUta2V5LW9mLXRoaXJ0eS10d28tYnl0ZXM=',
  PASSKEY_LOCAL_BLOB_KEYS: 'k1:bG9jYWwtYmxvYi1rZXktb2YtdGhpcnR5LXR3by1ieXRlcw==',
};

/** `docker-compose -f compose.yaml config …` with exactly `env` (and PATH): no daemon is asked. */
function composeConfig(args: readonly string[], env: Record<string, string>) {
  const only = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env };
  const unset = Object.fromEntries(Object.keys(SECRETS).map((name) => [name, '']));
  return runCommand('docker-compose', ['--file', join(REPO, 'compose.yaml'), 'config', ...args], 60_000, {
    ...unset,
    ...only,
  });
}

describe('compose.yaml', () => {
  it('docker-compose config renders it with the secrets set: the services, volumes and mounts of the docs', async () => {
    const rendered = await composeConfig([], SECRETS);
    assert.equal(rendered.code, 0, rendered.stderr);
    const services = await composeConfig(['--services'], SECRETS);
    assert.deepEqual(services.stdout.split('\n').filter(Boolean).sort(), [
      'migrate',
      'passkey-1',
      'passkey-2',
      'postgres',
      'redis',
    ]);
    const volumes = await composeConfig(['--volumes'], SECRETS);
    assert.deepEqual(volumes.stdout.split('\n').filter(Boolean).sort(), ['passkey-data', 'postgres-data']);
    const text = rendered.stdout;
    assert.ok(text.includes(`${join(REPO, 'deploy', 'config.json')}:/etc/passkey-server/config.json:ro`));
    assert.ok(text.includes('condition: service_completed_successfully'), 'the replicas wait for migrate');
    assert.equal(text.match(/read_only: true/g)?.length, 3, 'migrate and both replicas run read-only');
    assert.ok(text.includes(`PASSKEY_USER_HANDLE_KEY: ${SECRETS.PASSKEY_USER_HANDLE_KEY}`));
  });

  for (const missing of Object.keys(SECRETS)) {
    it(`refuses to render without ${missing}, naming it`, async () => {
      const { [missing]: _left, ...others } = SECRETS as Record<string, string>;
      const rendered = await composeConfig(['--quiet'], others);
      assert.notEqual(rendered.code, 0);
      assert.match(rendered.stderr, new RegExp(`set ${missing} \\(`));
    });
  }
});
