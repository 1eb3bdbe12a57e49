// `serve` refusing to start, with exit 1 and a message that says why: its port in use, a bad config,
// PostgreSQL without configured secrets.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { runCliCommand } from '../../support/cli-process.js';
import { configDir } from '../support.js';

describe('cli: serve refuses to start', () => {
  it('a port in use: exit 1 with a clear message', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const { dir, file } = configDir();
      const result = await runCliCommand(['serve', '--config', file, '--port', String(port)], { cwd: dir });
      assert.equal(result.code, 1);
      assert.match(result.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: EADDRINUSE`));
    } finally {
      blocker.close();
    }
  });

  it('a bad config: exit 1 listing the problems, nothing listens', async () => {
    const { dir, file } = configDir({ database: 'nosql:x' });
    const result = await runCliCommand(['serve', '--config', file], { cwd: dir });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /database: must be "sqlite:<path>"/);
    assert.doesNotMatch(result.stdout, /listening/);
  });

  it('PostgreSQL without configured secrets: refuses to start, naming the variables', async () => {
    const { dir, file } = configDir({ database: 'postgres://postgres@127.0.0.1:5432/test' });
    const result = await runCliCommand(['serve', '--config', file], { cwd: dir });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /PASSKEY_USER_HANDLE_KEY/);
    assert.ok(!existsSync(join(dir, 'data', 'secrets.json')), 'no secrets generated');
  });
});
