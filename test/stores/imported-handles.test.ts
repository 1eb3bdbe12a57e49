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
      assert.deepEqual(written, { written: 1, overLimit: [] });
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
      assert.equal((await store.importBatch(clientId, [], [another])).written, 1);
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
      assert.equal((await store.importBatch(clientId, [], records, [message(clientId)])).written, 2);
      assert.equal((await store.importBatch(clientId, [], records, [message(clientId)])).written, 0);
      const due = await store.outbox.lease('test', 1_800_000_000_000, 1000, 1000);
      assert.equal(due.filter((d) => d.clientId === clientId).length, 1);
    });

    it('leaves out a record whose user is at the limit by the write; a stored id neither counts nor is over it', async () => {
      const { store } = opened;
      const clientId = freshClientId();
      const [ann, bob] = [handle(), handle()];
      const of = (userHandle: string, username: string) => credential({ clientId, userHandle, username });
      const stored = [of(ann, 'ann#idp.example.test'), of(ann, 'ann#idp.example.test')];
      assert.equal((await store.importBatch(clientId, [], stored)).written, 2);
      const [third, fourth, bobs] = [
        of(ann, 'ann#idp.example.test'),
        of(ann, 'ann#idp.example.test'),
        of(bob, 'bob#idp.example.test'),
      ];
      const result = await store.importBatch(clientId, [], [stored[0]!, third, fourth, bobs], [message(clientId)], 3);
      assert.deepEqual(result, { written: 2, overLimit: [fourth.credentialId] });
      assert.deepEqual(
        (await store.listByUser(clientId, ann)).map((c) => c.credentialId).sort(),
        [...stored, third].map((c) => c.credentialId).sort(),
      );
      assert.equal((await store.listByUser(clientId, bob)).length, 1);
    });

    it('race: registrations and an import of one user at once never pass the limit together', async () => {
      const { store } = opened;
      const clientId = freshClientId();
      const userHandle = handle();
      const of = () => credential({ clientId, userHandle, username: 'ann#idp.example.test' });
      const imported = Array.from({ length: 6 }, of);
      const [batch, ...registrations] = await Promise.all([
        store.importBatch(clientId, [], imported, [], 5),
        ...Array.from({ length: 6 }, () => store.createCounted(of(), 5)),
      ]);
      const registered = registrations.filter((r) => typeof r === 'number').length;
      assert.equal((await store.listByUser(clientId, userHandle)).length, 5);
      assert.equal(batch.written + registered, 5);
      assert.equal(batch.overLimit.length + registrations.filter((r) => r === 'limit').length, 7);
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
