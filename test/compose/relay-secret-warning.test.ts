// The start warning `relay_secrets_none` (issue 23 item 3) counts the relay secrets the admin API and CLI
// created: a config file application with only a created secret is not named, one created through the
// admin API without any is. The whole service on SQLite, started twice on one data folder.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startService } from '../../src/main.js';
import { runCliCommand } from '../support/cli-process.js';
import { configDir } from '../cli/support.js';
import { minimalApp } from '../config/support.js';

async function warnedApplications(dir: string, file: string): Promise<string[]> {
  let logs = '';
  const sink = {
    write: (text: string) => {
      logs += text;
      return true;
    },
  };
  const running = await startService({ configFile: file, env: {}, cwd: dir, stdout: sink, stderr: sink });
  await running.close();
  return logs
    .split('\n')
    .filter((line) => line.includes('"event":"relay_secrets_none"'))
    .map((line) => (JSON.parse(line) as { clientId: string }).clientId)
    .sort();
}

describe('the start warning of applications without relay secrets', () => {
  it('counts created secrets, and names an application created through the admin API that has none', async () => {
    const { dir, file } = configDir(
      {
        local: { enabled: false },
        admin: { port: 0 },
        applications: [minimalApp(), minimalApp({ clientId: 'app-2' })],
      },
      'passkey-relay-warning-',
    );
    assert.deepEqual(await warnedApplications(dir, file), ['app-1', 'app-2']);
    const cli = async (...args: string[]) => {
      const result = await runCliCommand(['admin', ...args, '--config', file], { cwd: dir });
      assert.equal(result.code, 0, result.stderr);
      return JSON.parse(result.stdout);
    };
    await cli('relay-secret', 'create', 'app-1');
    const shop = await cli('app', 'create', '--name', 'Shop', '--domain', 'shop.example.test');
    assert.deepEqual(await warnedApplications(dir, file), ['app-2', shop.clientId].sort());
  });
});
