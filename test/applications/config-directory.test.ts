// The ApplicationDirectory: lookups by Client ID, trust built once per application at start.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createApplicationDirectory } from '../../src/applications/config-directory.js';
import { loadConfig } from '../../src/config/load.js';
import { ANCHOR_PEM, minimalApp, tempDir, writeFile } from '../config/support.js';

describe('applications', () => {
  it('finds each configured application by Client ID, with its config and a trust evaluator', async () => {
    const dir = tempDir();
    writeFile(dir, 'root.pem', ANCHOR_PEM);
    const file = writeFile(dir, 'c.json', {
      applications: [
        minimalApp({ clientId: 'a', attestation: { trustAnchors: ['root.pem'], requireTrusted: true } }),
        minimalApp({ clientId: 'b', name: 'B' }),
      ],
    });
    const config = loadConfig({ file, env: {}, cwd: dir });
    const directory = createApplicationDirectory(config.applications);
    const a = await directory.find('a');
    assert.equal(a?.name, 'App One');
    assert.deepEqual(a?.attestation.trustAnchors, [join(dir, 'root.pem')]);
    assert.equal(typeof a?.trust.evaluate, 'function');
    assert.equal((await directory.find('b'))?.name, 'B');
    assert.deepEqual(
      directory.list().map((app) => app.clientId),
      ['a', 'b'],
    );
  });

  it('unknown Client IDs (including prototype names) are undefined', async () => {
    const directory = createApplicationDirectory([]);
    for (const id of ['x', '__proto__', 'constructor', 'toString', ''])
      assert.equal(await directory.find(id), undefined);
  });

  it('builds each trust evaluator exactly once, at creation', async () => {
    const config = loadConfig({
      file: writeFile(tempDir(), 'c.json', {
        applications: [minimalApp({ clientId: 'a' }), minimalApp({ clientId: 'b' })],
      }),
      env: {},
      cwd: '/',
    });
    let built = 0;
    const directory = createApplicationDirectory(config.applications, () => {
      built += 1;
      return { evaluate: () => ({ trusted: false, aaguidProven: false, authenticatorName: null }) };
    });
    assert.equal(built, 2);
    await directory.find('a');
    await directory.find('a');
    assert.equal(built, 2);
  });

  it('with requireTrusted, an attestation without a path is refused by the evaluator', async () => {
    const dir = tempDir();
    writeFile(dir, 'root.pem', ANCHOR_PEM);
    const config = loadConfig({
      file: writeFile(dir, 'c.json', {
        applications: [minimalApp({ attestation: { trustAnchors: ['root.pem'], requireTrusted: true } })],
      }),
      env: {},
      cwd: dir,
    });
    const app = await createApplicationDirectory(config.applications).find('app-1');
    assert.throws(
      () =>
        app?.trust.evaluate({
          fmt: 'none',
          aaguid: '00000000-0000-0000-0000-000000000000',
          outcome: { type: 'none', trustPath: [] },
          now: new Date(),
        }),
      /ATTESTATION_NOT_TRUSTED/,
    );
  });
});
