// Secrets: environment, key file, generation on first start, PostgreSQL refusal, rotation, no leaks.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  initSecretsFile,
  loadSecrets,
  rotateLocalBlobKey,
  SecretsError,
  type SecretsFile,
} from '../../src/secrets/load.js';
import { createLogger } from '../../src/util/log.js';
import { tempDir } from '../config/support.js';

const sqlite = (dir: string) => ({
  secretsFile: join(dir, 'data', 'secrets.json'),
  database: { kind: 'sqlite' as const, path: join(dir, 'x.db') },
});
const postgres = (dir: string) => ({
  secretsFile: join(dir, 'secrets.json'),
  database: { kind: 'postgres' as const, url: 'postgres://h/d' },
});
const key = () => randomBytes(32);

function capture() {
  const lines: string[] = [];
  return { lines, log: createLogger({ sink: { write: (line: string) => lines.push(line) } }) };
}

describe('secrets', () => {
  it('are generated into the data folder on first start (mode 0600), then read back unchanged', () => {
    const dir = tempDir();
    const config = sqlite(dir);
    const { lines, log } = capture();
    const first = loadSecrets({ config, env: {}, randomBytes, log });
    assert.equal(first.userHandleKey.length, 32);
    assert.equal(first.localBlobKeys.length, 1);
    assert.equal(first.localBlobKeys[0]!.key.length, 32);
    assert.equal(statSync(config.secretsFile).mode & 0o777, 0o600);
    const second = loadSecrets({ config, env: {}, randomBytes });
    assert.deepEqual(second, first);
    assert.equal(lines.length, 1);
    assert.ok(!lines[0]!.includes(first.userHandleKey.toString('base64url')), 'the log never holds a key');
    assert.ok(!lines[0]!.includes(first.localBlobKeys[0]!.key.toString('base64url')));
  });

  it('two processes starting on a new data folder at once end with the same secrets: the file is created, never replaced, then read back', () => {
    const dir = tempDir();
    const config = sqlite(dir);
    // The other process: it writes its file while this one is generating its own (after finding none).
    const theirs = {
      version: 1,
      userHandleKey: key().toString('base64url'),
      localBlobKeys: [{ id: 'kOther', key: key().toString('base64url') }],
    };
    let raced = false;
    const racingRandom = (size: number): Buffer => {
      if (!raced) {
        raced = true;
        mkdirSync(join(dir, 'data'), { recursive: true });
        writeFileSync(config.secretsFile, JSON.stringify(theirs), { mode: 0o600 });
      }
      return randomBytes(size);
    };
    const ours = loadSecrets({ config, env: {}, randomBytes: racingRandom });
    assert.ok(raced, 'the race was staged');
    assert.deepEqual(JSON.parse(readFileSync(config.secretsFile, 'utf8')), theirs, 'the first file was replaced');
    assert.equal(ours.userHandleKey.toString('base64url'), theirs.userHandleKey);
    assert.deepEqual(
      ours.localBlobKeys.map((k) => k.id),
      ['kOther'],
    );
    assert.deepEqual(readdirSync(join(dir, 'data')), ['secrets.json'], 'no temporary file left behind');
  });

  it('come from the environment, newest blob key first; the file is then not needed', () => {
    const dir = tempDir();
    const [h, k1, k2] = [key(), key(), key()];
    const secrets = loadSecrets({
      config: postgres(dir),
      randomBytes,
      env: {
        PASSKEY_USER_HANDLE_KEY: h.toString('base64'),
        PASSKEY_LOCAL_BLOB_KEYS: ` new:${k1.toString('base64url')}, old:${k2.toString('base64')} `,
      },
    });
    assert.deepEqual(secrets, {
      userHandleKey: h,
      localBlobKeys: [
        { id: 'new', key: k1 },
        { id: 'old', key: k2 },
      ],
    });
  });

  it('one secret from the environment, the other from the file', () => {
    const dir = tempDir();
    const config = sqlite(dir);
    const generated = loadSecrets({ config, env: {}, randomBytes });
    const h = key();
    const mixed = loadSecrets({ config, env: { PASSKEY_USER_HANDLE_KEY: h.toString('base64url') }, randomBytes });
    assert.deepEqual(mixed, { userHandleKey: h, localBlobKeys: generated.localBlobKeys });
  });

  it('with PostgreSQL they are never generated: a clear refusal naming the variables', () => {
    const dir = tempDir();
    assert.throws(
      () => loadSecrets({ config: postgres(dir), env: {}, randomBytes }),
      (error: unknown) =>
        error instanceof SecretsError &&
        /PASSKEY_USER_HANDLE_KEY/.test(error.message) &&
        /PASSKEY_LOCAL_BLOB_KEYS/.test(error.message) &&
        /PostgreSQL/.test(error.message),
    );
    assert.throws(
      () =>
        loadSecrets({ config: postgres(dir), env: { PASSKEY_USER_HANDLE_KEY: key().toString('base64') }, randomBytes }),
      SecretsError,
    );
  });

  it('with PostgreSQL a shared key file works', () => {
    const dir = tempDir();
    const config = postgres(dir);
    initSecretsFile(config.secretsFile, randomBytes);
    assert.equal(loadSecrets({ config, env: {}, randomBytes }).localBlobKeys.length, 1);
  });

  it('bad environment values are refused without echoing them', () => {
    const dir = tempDir();
    const short = randomBytes(16).toString('base64');
    for (const env of [
      { PASSKEY_USER_HANDLE_KEY: short },
      { PASSKEY_USER_HANDLE_KEY: 'not base64 !!' },
      { PASSKEY_LOCAL_BLOB_KEYS: key().toString('base64') },
      { PASSKEY_LOCAL_BLOB_KEYS: `a:${short}` },
      { PASSKEY_LOCAL_BLOB_KEYS: `bad id:${key().toString('base64')}` },
      { PASSKEY_LOCAL_BLOB_KEYS: `a:${key().toString('base64')},a:${key().toString('base64')}` },
      { PASSKEY_LOCAL_BLOB_KEYS: ' , ' },
    ]) {
      assert.throws(
        () => loadSecrets({ config: sqlite(dir), env, randomBytes }),
        (error: unknown) => error instanceof SecretsError && !error.message.includes(short),
        JSON.stringify(env),
      );
    }
  });

  it('a damaged key file is refused, never regenerated', () => {
    const dir = tempDir();
    const config = sqlite(dir);
    loadSecrets({ config, env: {}, randomBytes });
    const good = readFileSync(config.secretsFile, 'utf8');
    for (const bad of [
      '{',
      '[]',
      '{"version":2}',
      JSON.stringify({ ...JSON.parse(good), userHandleKey: 'AAAA' }),
      JSON.stringify({ ...JSON.parse(good), localBlobKeys: [] }),
    ]) {
      writeFileSync(config.secretsFile, bad);
      assert.throws(() => loadSecrets({ config, env: {}, randomBytes }), SecretsError, bad);
      assert.equal(readFileSync(config.secretsFile, 'utf8'), bad, 'the file is left as it was');
    }
  });

  it('a key file readable by others is used, with a warning', () => {
    const dir = tempDir();
    const config = sqlite(dir);
    loadSecrets({ config, env: {}, randomBytes });
    chmodSync(config.secretsFile, 0o644);
    const { lines, log } = capture();
    loadSecrets({ config, env: {}, randomBytes, log });
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /readable by other users/);
  });

  it('rotateLocalBlobKey adds a newest key and keeps the old ones and the user-handle key', () => {
    const dir = tempDir();
    const config = sqlite(dir);
    const before = loadSecrets({ config, env: {}, randomBytes });
    const id = rotateLocalBlobKey(config.secretsFile, randomBytes);
    const after = loadSecrets({ config, env: {}, randomBytes });
    assert.equal(after.localBlobKeys.length, 2);
    assert.equal(after.localBlobKeys[0]!.id, id);
    assert.deepEqual(after.localBlobKeys.slice(1), before.localBlobKeys);
    assert.deepEqual(after.userHandleKey, before.userHandleKey);
    assert.equal(statSync(config.secretsFile).mode & 0o777, 0o600);
    rotateLocalBlobKey(config.secretsFile, randomBytes);
    const ids = loadSecrets({ config, env: {}, randomBytes }).localBlobKeys.map((k) => k.id);
    assert.equal(new Set(ids).size, 3);
  });

  it('rotateLocalBlobKey of a missing file fails clearly', () => {
    assert.throws(() => rotateLocalBlobKey(join(tempDir(), 'none.json'), randomBytes), /does not exist/);
  });

  it('initSecretsFile never overwrites an existing file', () => {
    const file = join(tempDir(), 'keys.json');
    initSecretsFile(file, randomBytes);
    const content = readFileSync(file, 'utf8');
    assert.throws(() => initSecretsFile(file, randomBytes), /exists already/);
    assert.equal(readFileSync(file, 'utf8'), content);
    const parsed = JSON.parse(content) as SecretsFile;
    assert.equal(parsed.version, 1);
  });
});
