// The sealing of stored webhook signing secrets (src/webhooks/secret-box.ts) and the start-up pass that
// seals the rest (compose/features/webhooks.ts `sealStoredSecrets`): a sealed secret opens with its key only, only
// on its own row, not once tampered; the newest key seals and every key opens (rotation); a clear row from
// before sealing is sealed at start, one sealed under an older key is sealed again under the newest, one
// whose key was retired is left and said. The memory backend's rows hold what the admin API stored: sealed.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { isSealed, webhookSecretBox } from '../../src/webhooks/secret-box.js';
import { sealStoredSecrets } from '../../src/compose/features/webhooks.js';
import { MemoryCredentialStore } from '../../src/stores/memory/credentials.js';
import { MemoryApplicationStore } from '../../src/stores/memory/applications.js';
import { MemoryAuditStore } from '../../src/stores/memory/audit.js';
import { seedApplications } from '../../src/applications/directory.js';
import { AuditLog } from '../../src/audit/index.js';
import { WebhookAdmin } from '../../src/admin/webhook-admin.js';
import { captureLog, testRuntime } from '../support/admin-fixtures.js';
import { fakeResolver } from '../support/resolver.js';
import { loadConfig } from '../../src/config/load.js';
import { minimalApp, tempDir, writeFile } from '../config/support.js';

const OLD = { id: 'k-old', key: randomBytes(32) };
const NEW = { id: 'k-new', key: randomBytes(32) };
const SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const owner = { clientId: 'app-1', id: 'wh_1' };

describe('webhook signing secrets at rest', () => {
  it('sealed under the newest key, opened by any key, only on its own row, never once tampered', () => {
    const box = webhookSecretBox([OLD], randomBytes);
    const sealed = box.seal(owner, SECRET);
    assert.ok(isSealed(sealed) && sealed.startsWith('whenc:v1:k-old:'), sealed);
    assert.ok(!sealed.includes(SECRET.slice(6)), 'not the secret');
    assert.notEqual(box.seal(owner, SECRET), sealed, 'a fresh nonce each time');
    assert.equal(box.open(owner, sealed), SECRET);
    assert.equal(box.open({ ...owner, id: 'wh_2' }, sealed), undefined, 'another row');
    assert.equal(box.open({ ...owner, clientId: 'app-2' }, sealed), undefined, 'another application');
    const body = sealed.slice('whenc:v1:k-old:'.length);
    const flipped = `whenc:v1:k-old:${body.slice(0, 20)}${body[20] === 'A' ? 'B' : 'A'}${body.slice(21)}`;
    assert.equal(box.open(owner, flipped), undefined, 'tampered');
    assert.equal(box.open(owner, 'whenc:v1:k-old:'), undefined);
    assert.equal(box.open(owner, 'whenc:v1:nokey'), undefined);

    const rotated = webhookSecretBox([NEW, OLD], randomBytes);
    assert.equal(rotated.open(owner, sealed), SECRET, 'an older key still opens');
    assert.equal(rotated.isCurrent(sealed), false);
    assert.equal(rotated.isCurrent(rotated.seal(owner, SECRET)), true);
    assert.equal(webhookSecretBox([NEW], randomBytes).open(owner, sealed), undefined, 'its key retired');
    assert.equal(rotated.open(owner, SECRET), SECRET, 'a clear row from before sealing');
    assert.equal(rotated.isCurrent(SECRET), false);
  });

  it('the start-up pass seals clear rows and rows under an older key; a row whose key is gone is left', async () => {
    const credentials = new MemoryCredentialStore();
    const old = webhookSecretBox([OLD], randomBytes);
    const row = (id: string, secret: string) => ({
      id,
      clientId: 'app-1',
      url: 'https://hooks.example/x',
      secret,
      events: null,
      createdAt: 1,
    });
    await credentials.webhooks.create(row('wh_clear', SECRET));
    await credentials.webhooks.create(row('wh_old', old.seal({ clientId: 'app-1', id: 'wh_old' }, SECRET)));
    const lost = webhookSecretBox([{ id: 'k-lost', key: randomBytes(32) }], randomBytes);
    const lostSecret = lost.seal({ clientId: 'app-1', id: 'wh_lost' }, SECRET);
    await credentials.webhooks.create(row('wh_lost', lostSecret));
    const box = webhookSecretBox([NEW, OLD], randomBytes);
    const log = captureLog();
    assert.equal(await sealStoredSecrets(credentials.webhooks, box, log), 2);
    const stored = new Map((await credentials.webhooks.listAll()).map((w) => [w.id, w]));
    for (const id of ['wh_clear', 'wh_old']) {
      assert.ok(stored.get(id)!.secret.startsWith('whenc:v1:k-new:'), id);
      assert.equal(box.open(stored.get(id)!, stored.get(id)!.secret), SECRET, id);
    }
    assert.equal(stored.get('wh_lost')!.secret, lostSecret, 'left as it was');
    assert.ok(log.lines.some((l) => l.level === 'warn' && l.fields.event === 'webhook_secret_unreadable'));
    assert.equal(await sealStoredSecrets(credentials.webhooks, box, captureLog()), 0, 'nothing more to do');
  });

  it('the admin API stores a new secret sealed (memory backend) and answers it in clear once', async () => {
    const runtime = testRuntime();
    const dir = tempDir();
    const file = writeFile(dir, 'config.json', { applications: [minimalApp()] });
    const applications = new MemoryApplicationStore();
    await seedApplications(applications, loadConfig({ file, env: {}, cwd: dir }).applications, runtime.now());
    const credentials = new MemoryCredentialStore();
    const box = webhookSecretBox([NEW], randomBytes);
    const admin = new WebhookAdmin({
      applications,
      credentials,
      audit: new AuditLog(new MemoryAuditStore(), runtime, captureLog()),
      runtime,
      urlRules: { allowLoopbackHttp: false, allowPrivateAddresses: false },
      resolveHost: fakeResolver({ 'hooks.example': ['93.184.215.14'] }).resolve,
      secretBox: box,
    });
    const made = await admin.create({ name: 'test' } as never, 'app-1', { url: 'https://hooks.example/x' });
    assert.match(made.secret, /^whsec_/);
    const [stored] = await credentials.webhooks.list('app-1');
    assert.ok(stored!.secret.startsWith('whenc:v1:k-new:'));
    assert.equal(box.open(stored!, stored!.secret), made.secret);
    assert.ok(!('secret' in (await admin.list('app-1')).webhooks[0]!), 'never shown again');
  });
});
