// Helpers of the configuration tests: temporary folders, config files, a trust anchor fixture.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../src/config/errors.js';

/** A self-signed P-256 CA certificate (CN=Config Test Root, valid to 2126), made with openssl for these tests. */
export const ANCHOR_PEM = `-----BEGIN CERTIFICATE-----
MIIBjDCCATOgAwIBAgIUEH3uyBYINcdAO+shM28ZMaDYsn4wCgYIKoZIzj0EAwIw
GzEZMBcGA1UEAwwQQ29uZmlnIFRlc3QgUm9vdDAgFw0yNjExMjIwMzM3MDVaGA8y
MTI2MTAyOTAzMzcwNVowGzEZMBcGA1UEAwwQQ29uZmlnIFRlc3QgUm9vdDBZMBMG
ByqGSM49AgEGCCqGSM49AwEHA0IABL5Z1VT0FCOrqKl2jbAtkWNFnSiqJ65cd59Y
OlKQpyXcwKlUrpJ01Exo7LL+SrzRNjTEiB7iHbWkACAj+J6oC8ajUzBRMB0GA1Ud
DgQWBBRLb7X10qwcFRqbX2A+YLdgSeJD8DAfBgNVHSMEGDAWgBRLb7X10qwcFRqb
X2A+YLdgSeJD8DAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0cAMEQCIGEH
Lj0rcIiIXLrL5YymxSePHcWQTQ5GAcqS28Nq55XuAiAQlFymHZGjg0Y2hCC9aTZl
/jIMaujIaRRW2Sl39rHmyQ==
-----END CERTIFICATE-----
`;

const made: string[] = [];
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temporary folder, removed when the test file ends. */
export function tempDir(prefix = 'passkey-config-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Writes `content` (JSON-encoded unless a string) to `dir/name`, creating folders; returns the path. */
export function writeFile(dir: string, name: string, content: unknown): string {
  const path = join(dir, name);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
}

/** The smallest valid application entry. */
export function minimalApp(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    clientId: 'app-1',
    name: 'App One',
    domain: 'idp.example.test',
    origins: ['https://idp.example.test'],
    ...overrides,
  };
}

/** The problems of the ConfigError that `run` throws (fails the test if it throws none, or another error). */
export function problemsOf(run: () => unknown): readonly string[] {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error.problems;
  }
  assert.fail('expected a ConfigError');
}

/** Asserts that some problem starts with `path` and mentions `words`. */
export function assertProblem(problems: readonly string[], path: string, words = ''): void {
  assert.ok(
    problems.some((p) => p.startsWith(path) && p.includes(words)),
    `no problem "${path} … ${words}" in:\n${problems.join('\n')}`,
  );
}
