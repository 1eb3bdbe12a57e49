// applications[].relaySecrets in the config file: `sha256:` entries kept as written, `env:` entries read
// from the environment and kept as their hash only, and a precise problem for each bad entry (whose value
// is never echoed, in case it is a secret written there by mistake).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { loadConfig } from '../../src/config/load.js';
import { minimalApp, problemsOf, tempDir, writeFile } from './support.js';

const SECRET = 'prs_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG';
const HASH = `sha256:${createHash('sha256').update(SECRET, 'utf8').digest('hex')}`;

function load(app: Record<string, unknown>, env: Record<string, string> = {}) {
  const dir = tempDir();
  const file = writeFile(dir, 'config.json', { applications: [minimalApp(app)] });
  return () => loadConfig({ file, env, cwd: dir });
}

describe('applications[].relaySecrets', () => {
  it('keeps sha256: entries, and hashes the secret an env: entry names', () => {
    const config = load({ relaySecrets: [HASH, 'env:RELAY_NEXT'] }, { RELAY_NEXT: `${SECRET}-next` })();
    const next = `sha256:${createHash('sha256').update(`${SECRET}-next`, 'utf8').digest('hex')}`;
    assert.deepEqual(config.applications[0]!.relaySecrets, [HASH, next]);
    assert.equal(JSON.stringify(config).includes(SECRET), false);
  });

  it('absent stays absent (no secret asked)', () => {
    assert.equal('relaySecrets' in load({})().applications[0]!, false);
  });

  it('names a missing or empty environment variable', () => {
    assert.deepEqual(problemsOf(load({ relaySecrets: ['env:RELAY_SECRET'] })), [
      'applications[0].relaySecrets[0]: names the environment variable RELAY_SECRET, which is not set (or empty)',
    ]);
    assert.deepEqual(problemsOf(load({ relaySecrets: ['env:RELAY_SECRET'] }, { RELAY_SECRET: '' })), [
      'applications[0].relaySecrets[0]: names the environment variable RELAY_SECRET, which is not set (or empty)',
    ]);
  });

  it('refuses a short secret in the environment', () => {
    const [problem] = problemsOf(load({ relaySecrets: ['env:RELAY_SECRET'] }, { RELAY_SECRET: 'tooshort' }));
    assert.match(
      String(problem),
      /^applications\[0\]\.relaySecrets\[0\]: the secret in RELAY_SECRET must be at least 16 characters/,
    );
  });

  it('refuses a malformed entry without echoing it, the same secret twice, and more than 16', () => {
    const problems = problemsOf(load({ relaySecrets: [SECRET, HASH.toUpperCase().replace('SHA256', 'sha256'), 42] }));
    const shape =
      'must be "sha256:<64 lowercase hex digits>" (the SHA-256 of the secret\'s UTF-8 bytes) or "env:<NAME>" (an environment variable that holds the secret), got';
    assert.deepEqual(problems, [
      `applications[0].relaySecrets[0]: ${shape} another string (not shown)`,
      `applications[0].relaySecrets[1]: ${shape} another string (not shown)`,
      `applications[0].relaySecrets[2]: ${shape} number 42`,
    ]);
    assert.equal(problems.join('\n').includes(SECRET), false);
    assert.deepEqual(problemsOf(load({ relaySecrets: [HASH, 'env:SAME'] }, { SAME: SECRET })), [
      `applications[0].relaySecrets[1]: duplicate entry "${HASH}"`,
    ]);
    const many = Array.from({ length: 17 }, (_, i) => `sha256:${String(i).padStart(64, '0')}`);
    assert.deepEqual(problemsOf(load({ relaySecrets: many })), [
      'applications[0].relaySecrets: must hold 0 to 16 entries',
    ]);
  });
});
