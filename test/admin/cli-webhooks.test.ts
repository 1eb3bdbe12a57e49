// `passkey-server admin app create|update` (a child process on a config file, SQLite) with webhooks whose
// URL leads to a non-public address or holds a control character: refused with INVALID_REQUEST naming the
// problem, and nothing stored; the same body with a public address literal is taken. (Host names the CLI
// resolves with the system's resolver; the service's own paths and a changing DNS answer:
// test/admin/http/webhook-destinations.test.ts.)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { configDir } from '../cli/support.js';
import { minimalApp } from '../config/support.js';
import { runCliCommand } from '../support/cli-process.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const { dir, file } = configDir({ local: { enabled: false }, applications: [minimalApp()] }, 'passkey-cli-hooks-');
const admin = (...args: string[]) => runCliCommand(['admin', ...args, '--config', file], { cwd: dir });
const hooks = (url: string) => JSON.stringify({ webhooks: [{ url, secret: SECRET }] });

describe('admin CLI: an application’s webhooks reach only public addresses', () => {
  it('refuses loopback, private, link-local, unique-local and control characters; nothing stored', async () => {
    const refused: [string, RegExp][] = [
      ['https://169.254.169.254/latest', /link-local address/],
      ['https://[fd00::1]/x', /unique-local address/],
      ['https://[::ffff:10.0.0.1]/x', /private address/],
      ['https://localhost/x', /loopback name/],
      ['https://93.184.215.14/a\u0000b', /control characters/],
    ];
    for (const [url, why] of refused) {
      const updated = await admin('app', 'update', 'app-1', '--json', hooks(url));
      assert.notEqual(updated.code, 0, url);
      assert.match(updated.stderr + updated.stdout, /INVALID_REQUEST/, url);
      assert.match(updated.stderr + updated.stdout, why, url);
      const created = await admin('app', 'create', '--name', 'Hooks', '--domain', 'hooks.test', '--json', hooks(url));
      assert.notEqual(created.code, 0, url);
    }
    const shown = JSON.parse((await admin('app', 'show', 'app-1')).stdout) as { webhooks?: unknown[] };
    assert.equal(shown.webhooks, undefined, 'nothing stored');
    assert.equal(
      (JSON.parse((await admin('app', 'list')).stdout) as { applications: unknown[] }).applications.length,
      1,
    );

    const taken = await admin('app', 'update', 'app-1', '--json', hooks('https://93.184.215.14/hooks?token=t'));
    assert.equal(taken.code, 0, taken.stderr);
    assert.deepEqual(
      (JSON.parse(taken.stdout) as { webhooks: { url: string }[] }).webhooks.map((w) => w.url),
      ['https://93.184.215.14/hooks?…'],
    );
    const made = await admin(
      'app',
      'create',
      '--name',
      'Hooks',
      '--domain',
      'hooks.test',
      '--json',
      hooks('https://93.184.215.14/x'),
    );
    assert.equal(made.code, 0, `the same create with a public address is taken: ${made.stderr}`);
  });
});
