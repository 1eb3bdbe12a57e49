// What an export reads (src/transfer/stored-pages.ts): every stored passkey of one application, page by page
// in credential id order, and no other application's.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { storedPages } from '../../src/transfer/stored-pages.js';
import { MemoryCredentialStore } from '../../src/stores/memory/credentials.js';
import { credential } from '../support/admin-fixtures.js';

describe('storedPages', () => {
  it('pages through one application in credential id order, a full last page followed by none', async () => {
    const store = new MemoryCredentialStore();
    for (let i = 0; i < 6; i++) await store.create(credential({ clientId: 'a' }));
    await store.create(credential({ clientId: 'b' }));
    const pages: string[][] = [];
    for await (const page of storedPages(store, 'a', 2)) pages.push(page.map((c) => c.credentialId));
    assert.deepEqual(
      pages.map((p) => p.length),
      [2, 2, 2],
    );
    const ids = pages.flat();
    assert.deepEqual(ids, [...ids].sort());
    assert.equal(new Set(ids).size, 6);
  });
});
