// An application store that keeps its webhooks' literal signing secrets sealed (src/applications/sealed-store.ts),
// over the memory store: what it writes holds the secret sealed and bound to the application, what it reads
// holds it in clear, `env:` references stay as written; `sealAll` seals records written in clear or under an
// older key, leaves one whose key is gone, and never writes over a record changed meanwhile.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sealedApplicationStore } from '../../src/applications/sealed-store.js';
import { MemoryApplicationStore } from '../../src/stores/memory/applications.js';
import type { ApplicationRecord, ApplicationStore } from '../../src/stores/types.js';
import { webhookSecretBox } from '../../src/webhooks/secret-box.js';
import { loadConfig } from '../../src/config/load.js';
import { minimalApp, tempDir, writeFile } from '../config/support.js';

const SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const OLD = { id: 'k-old', key: randomBytes(32) };
const NEW = { id: 'k-new', key: randomBytes(32) };

function record(clientId: string, secret: string, updatedAt = 1): ApplicationRecord {
  const dir = tempDir();
  const file = writeFile(dir, 'config.json', {
    applications: [
      minimalApp({
        clientId,
        webhooks: [
          { url: 'https://hooks.example/a', secret },
          { url: 'https://hooks.example/b', secret: 'env:HOOK_SECRET' },
        ],
      }),
    ],
  });
  const config = loadConfig({ file, env: { HOOK_SECRET: SECRET }, cwd: dir }).applications[0]!;
  return { config, approved: true, disabled: false, source: 'admin', createdAt: 1, updatedAt };
}

const secretsOf = (r: ApplicationRecord | undefined) => r?.config.webhooks?.map((w) => w.secret);

describe('an application store with sealed webhook secrets', () => {
  it('writes them sealed, reads them clear; env: references stay', async () => {
    const raw = new MemoryApplicationStore();
    const store = sealedApplicationStore(raw, webhookSecretBox([NEW], randomBytes));
    await store.create(record('app-1', SECRET));
    const [sealed, reference] = secretsOf(await raw.get('app-1'))!;
    assert.ok(sealed!.startsWith('whenc:v1:k-new:'), sealed);
    assert.equal(reference, 'env:HOOK_SECRET');
    assert.deepEqual(secretsOf(await store.get('app-1')), [SECRET, 'env:HOOK_SECRET']);
    assert.deepEqual(secretsOf((await store.list())[0]), [SECRET, 'env:HOOK_SECRET']);
    // Bound to its application: copied onto another, it does not open.
    const other = record('app-2', SECRET);
    const copied = other.config.webhooks!.map((w, i) => (i === 0 ? { ...w, secret: sealed! } : w));
    await raw.create({ ...other, config: { ...other.config, webhooks: copied } });
    assert.equal(secretsOf(await store.get('app-2'))![0], sealed, 'left sealed: it does not open there');
    await store.update({ ...(await store.get('app-1'))!, disabled: true });
    assert.ok(secretsOf(await raw.get('app-1'))![0]!.startsWith('whenc:v1:k-new:'), 'sealed again when updated');
  });

  it('sealAll: clear and older-key records sealed under the newest key; a lost key or a change left alone', async () => {
    const raw = new MemoryApplicationStore();
    await raw.create(record('clear', SECRET));
    await sealedApplicationStore(raw, webhookSecretBox([OLD], randomBytes)).create(record('old', SECRET));
    await sealedApplicationStore(raw, webhookSecretBox([{ id: 'k-lost', key: randomBytes(32) }], randomBytes)).create(
      record('lost', SECRET),
    );
    const lostBefore = secretsOf(await raw.get('lost'));
    const store = sealedApplicationStore(raw, webhookSecretBox([NEW, OLD], randomBytes));
    assert.equal(await store.sealAll(), 2);
    for (const clientId of ['clear', 'old']) {
      assert.ok(secretsOf(await raw.get(clientId))![0]!.startsWith('whenc:v1:k-new:'), clientId);
      assert.equal(secretsOf(await store.get(clientId))![0], SECRET, clientId);
    }
    assert.deepEqual(secretsOf(await raw.get('lost')), lostBefore);
    assert.equal(await store.sealAll(), 0, 'nothing more');

    // A record changed between the read and the write is not written over.
    const racing = new MemoryApplicationStore();
    await racing.create(record('busy', SECRET));
    const reads = { count: 0 };
    // Its second read (just before the write) sees another update time: someone changed it meanwhile.
    const changing: ApplicationStore = {
      get: async (clientId) => {
        reads.count += 1;
        const found = await racing.get(clientId);
        return found && { ...found, updatedAt: found.updatedAt + 1 };
      },
      list: () => racing.list(),
      create: (r) => racing.create(r),
      update: (r) => racing.update(r),
      delete: (clientId) => racing.delete(clientId),
      ping: () => racing.ping(),
      close: () => racing.close(),
    };
    assert.equal(await sealedApplicationStore(changing, webhookSecretBox([NEW], randomBytes)).sealAll(), 0);
    assert.equal(reads.count, 1);
    assert.equal(secretsOf(await racing.get('busy'))![0], SECRET, 'left for the next start');
  });
});
