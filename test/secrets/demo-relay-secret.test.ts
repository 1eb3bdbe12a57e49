// Applications without relay secrets are said at start (one warning line each) and by check-config; the
// demo's application gets the demo's own secret, made on first start and kept in the data folder (0600).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  applicationsWithoutRelaySecrets,
  DEMO_RELAY_SECRET_FILE,
  ensureDemoRelaySecret,
  withDemoRelaySecret,
} from '../../src/secrets/demo-relay-secret.js';
import { loadConfig } from '../../src/config/load.js';
import { relaySecretHash } from '../../src/config/relay-secret-entries.js';
import { startService } from '../../src/main.js';
import { runCliCommand } from '../support/cli-process.js';
import { minimalApp, tempDir, writeFile } from '../config/support.js';

const SECRET = 'prs_start-warning-secret-0123456789abcdefghijk';

function sink() {
  let text = '';
  return {
    write: (chunk: string) => {
      text += chunk;
      return true;
    },
    text: () => text,
  };
}

describe("the demo's relay secret", () => {
  it('is made once, 0600, in the data folder, and kept', () => {
    const dir = tempDir();
    const first = ensureDemoRelaySecret(dir, randomBytes);
    assert.match(first, /^prs_[A-Za-z0-9_-]{43}$/);
    const file = join(dir, DEMO_RELAY_SECRET_FILE);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(ensureDemoRelaySecret(dir, randomBytes), first);
    assert.equal(readFileSync(file, 'utf8').trim(), first);
  });

  it("is added to the demo's application (the first), and only with the demo on", () => {
    const dataDir = tempDir();
    const config = loadConfig({ env: { PASSKEY_DATA_DIR: dataDir }, cwd: dataDir });
    assert.deepEqual(applicationsWithoutRelaySecrets(config.applications), ['demo-client']);
    const { config: withSecret, demoRelaySecret } = withDemoRelaySecret(config, randomBytes);
    assert.ok(demoRelaySecret);
    assert.deepEqual(withSecret.applications[0]!.relaySecrets, [relaySecretHash(demoRelaySecret)]);
    assert.deepEqual(applicationsWithoutRelaySecrets(withSecret.applications), []);
    const off = withDemoRelaySecret({ ...config, demo: { ...config.demo, enabled: false } }, randomBytes);
    assert.equal(off.demoRelaySecret, null);
    assert.equal(off.config.applications[0]!.relaySecrets, undefined);
  });
});

describe('applications without relay secrets, at start and in check-config', () => {
  function configWithTwo(): { dir: string; file: string } {
    const dir = tempDir();
    const file = writeFile(dir, 'config.json', {
      listen: { host: '127.0.0.1', port: 0 },
      dataDir: dir,
      demo: { enabled: false },
      admin: { enabled: false },
      applications: [
        minimalApp({ clientId: 'guarded', relaySecrets: ['env:GUARDED_RELAY_SECRET'] }),
        minimalApp({ clientId: 'open' }),
      ],
    });
    return { dir, file };
  }

  it('serve: one warning line for the open application; the guarded one asks for its secret', async () => {
    const { dir, file } = configWithTwo();
    const stdout = sink();
    const stderr = sink();
    const running = await startService({
      configFile: file,
      env: { GUARDED_RELAY_SECRET: SECRET },
      cwd: dir,
      stdout,
      stderr,
    });
    try {
      const warnings = stderr
        .text()
        .split('\n')
        .filter((line) => line.includes('relay_secrets_none'));
      assert.equal(warnings.length, 1, stderr.text());
      assert.match(warnings[0]!, /"clientId":"open"/);
      const call = (clientId: string, headers: Record<string, string> = {}) =>
        fetch(`${running.url}/api/attestation/options`, {
          method: 'POST',
          headers: {
            'user-agent': `Vendor AppID: ${clientId}`,
            origin: 'https://idp.example.test',
            'content-type': 'application/json',
            ...headers,
          },
          body: JSON.stringify({ username: 'alice#idp.example.test' }),
          signal: AbortSignal.timeout(10_000),
        });
      assert.equal((await call('guarded')).status, 401);
      assert.equal((await call('guarded', { authorization: `Bearer ${SECRET}` })).status, 200);
      assert.equal((await call('open')).status, 200);
      assert.equal(`${stdout.text()}${stderr.text()}`.includes(SECRET), false);
    } finally {
      await running.close();
    }
  });

  it('check-config names it', async () => {
    const { dir, file } = configWithTwo();
    const result = await runCliCommand(['check-config', '--config', file], {
      cwd: dir,
      env: { GUARDED_RELAY_SECRET: SECRET },
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /relay secrets: guarded: 1/);
    // The file is all check-config reads: it says a secret made through the admin API is not counted.
    assert.match(result.stdout, /WARNING: +open has no relay secrets in this file: unless the admin API gave it one/);
  });
});
