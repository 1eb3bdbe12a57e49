// The kept user handles of imports (src/stores/types.ts importedUserHandle, importLookup, importBatch) on every
// credential store: memory, a SQLite file, PostgreSQL.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { CREDENTIAL_STORES, type OpenedCredentialStore } from '../support/credential-stores.js';
import { credential, freshClientId } from './contract.js';
import type { OutboxMessage } from '../../src/stores/types.js';

const handle = () => randomBytes(32).toString('base64url');

function message(clientId: string): OutboxMessage {
  return {
    id: `msg_${randomBytes(8).toString('hex')}`,
    clientId,
    webhookId: 'wh_test',
    type: 'credentials.imported',
    body: '{}',
    createdAt: 1_700_000_000_000,
  };
}

for (const kind of CREDENTIAL_STORES) {
  describe(`imported user handles: ${kind.name}`, () => {
    let opened: OpenedCredentialStore;
    before(async () => {
      opened = await kind.open();
    });
    after(() => opened.close());

    it('keeps a user handle with the batch, answers it by name, finds it by name and by handle', async () => {
      const { store } = opened;
      const clientId = freshClientId();
      const userHandle = handle();
      const record = credential({ clientId, userHandle, username: 'ann#idp.example.test' });
      assert.equal(await store.importedUserHandle(clientId, 'ann#idp.example.test'), undefined);
      const written = await store.importBatch(clientId, [{ username: 'ann#idp.example.test', userHandle }], [record]);
      assert.equal(written, 1);
      assert.equal(await store.importedUserHandle(clientId, 'ann#idp.example.test'), userHandle);
      assert.equal(await store.importedUserHandle(freshClientId(), 'ann#idp.example.test'), undefined);
      assert.deepEqual(
        (await store.listByUser(clientId, userHandle)).map((c) => c.credentialId),
        [record.credentialId],
      );
      const byName = await store.importLookup(clientId, {
        credentialIds: [record.credentialId, 'unknown'],
        usernames: ['ann#idp.example.test', 'bob#idp.example.test'],
        userHandles: [],
      });
      assert.deepEqual(
        byName.credentials.map((c) => c.credentialId),
        [record.credentialId],
      );
      assert.deepEqual(byName.handles, [{ username: 'ann#idp.example.test', userHandle }]);
      assert.deepEqual(byName.owners, []);
      const another = credential({ clientId, userHandle, username: 'ann#idp.example.test' });
      assert.equal(await store.importBatch(clientId, [], [another]), 1);
      const byHandle = await store.importLookup(clientId, {
        credentialIds: [],
        usernames: [],
        userHandles: [userHandle, handle()],
      });
      assert.deepEqual(byHandle.handles, [{ username: 'ann#idp.example.test', userHandle }]);
      assert.deepEqual(byHandle.owners, [{ username: 'ann#idp.example.test', userHandle, passkeys: 2 }]);
    });

    it('writes a batch once: an existing id is left as it is, and its events only when something was written', async () => {
      const { store } = opened;
      const clientId = freshClientId();
      const records = [credential({ clientId }), credential({ clientId })];
      assert.equal(await store.importBatch(clientId, [], records, [message(clientId)]), 2);
      assert.equal(await store.importBatch(clientId, [], records, [message(clientId)]), 0);
      const due = await store.outbox.lease('test', 1_800_000_000_000, 1000, 1000);
      assert.equal(due.filter((d) => d.clientId === clientId).length, 1);
    });

    it('refuses a batch whose user keeps another handle, or whose handle another user keeps, writing nothing', async () => {
      const { store } = opened;
      const clientId = freshClientId();
      const [first, second] = [handle(), handle()];
      await store.importBatch(clientId, [{ username: 'ann#idp.example.test', userHandle: first }], []);
      const lost = credential({ clientId, userHandle: second, username: 'ann#idp.example.test' });
      await assert.rejects(
        store.importBatch(clientId, [{ username: 'ann#idp.example.test', userHandle: second }], [lost]),
      );
      const stolen = credential({ clientId, userHandle: first, username: 'bob#idp.example.test' });
      await assert.rejects(
        store.importBatch(clientId, [{ username: 'bob#idp.example.test', userHandle: first }], [stolen]),
      );
      assert.equal(await store.find(clientId, lost.credentialId), undefined);
      assert.equal(await store.find(clientId, stolen.credentialId), undefined);
      assert.equal(await store.importedUserHandle(clientId, 'bob#idp.example.test'), undefined);
    });

    it('forgets the kept handle with the user (deleteUser) and with the application', async () => {
      const { store } = opened;
      const clientId = freshClientId();
      const [one, two] = [handle(), handle()];
      await store.importBatch(
        clientId,
        [
          { username: 'ann#idp.example.test', userHandle: one },
          { username: 'bob#idp.example.test', userHandle: two },
        ],
        [credential({ clientId, userHandle: one }), credential({ clientId, userHandle: two })],
      );
      await store.deleteUser(clientId, one, () => []);
      assert.equal(await store.importedUserHandle(clientId, 'ann#idp.example.test'), undefined);
      assert.equal(await store.importedUserHandle(clientId, 'bob#idp.example.test'), two);
      assert.equal(await store.deleteByApplication(clientId), 1);
      assert.equal(await store.importedUserHandle(clientId, 'bob#idp.example.test'), undefined);
    });
  });
}
