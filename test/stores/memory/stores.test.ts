// The memory stores run the shared contract, plus the memory-only rule: expired entries are swept.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryChallengeStore } from '../../../src/stores/memory/challenges.js';
import { MemoryCredentialStore } from '../../../src/stores/memory/credentials.js';
import { ceremony, challengeStoreContract, credentialStoreContract } from '../contract.js';
import { localCredentialContract } from '../local-contract.js';

challengeStoreContract('memory', () => new MemoryChallengeStore());
localCredentialContract('memory', async (localLimits = {}) => new MemoryChallengeStore({ localLimits }));
credentialStoreContract('memory', () => new MemoryCredentialStore());

describe('MemoryChallengeStore: bounded memory', () => {
  it('sweeps expired ceremonies and used-markers as new ones arrive (clock given)', async () => {
    let now = 1_700_000_000_000;
    const store = new MemoryChallengeStore({ clock: () => now });
    for (let i = 0; i < 1000; i += 1) await store.put(ceremony({ clientId: 'c', expiresAt: now + 1000 }));
    const used = ceremony({ clientId: 'c', expiresAt: now + 1000 });
    await store.put(used);
    assert.equal((await store.take('c', used.challenge, now)).state, 'taken');
    assert.equal(store.size, 1001);
    now += 2000;
    for (let i = 0; i < 1000; i += 1) await store.put(ceremony({ clientId: 'c', expiresAt: now + 1000 }));
    assert.ok(store.size <= 1000 + 64, `expected the expired entries swept, size ${store.size}`);
    await store.close();
  });

  it('one timeout: expired entries go from the oldest end as new ones arrive, a few per change', async () => {
    let now = 1_700_000_000_000;
    const store = new MemoryChallengeStore({ clock: () => now });
    // A steady stream: each ceremony lives 1000 ms, one arrives every ms, half of them are taken.
    for (let i = 0; i < 20_000; i += 1) {
      now += 1;
      const record = ceremony({ clientId: 'c', expiresAt: now + 1000 });
      await store.put(record);
      if (i % 2 === 0) assert.equal((await store.take('c', record.challenge, now)).state, 'taken');
    }
    // What is alive (about 1000 entries) is all that is held.
    assert.ok(store.size <= 1001 + 64, `size ${store.size}`);
    await store.close();
  });

  it('several timeouts: short-lived entries behind a long-lived one are freed by a full sweep as the store grows', async () => {
    let now = 1_700_000_000_000;
    const store = new MemoryChallengeStore({ clock: () => now });
    const long = ceremony({ clientId: 'c', expiresAt: now + 600_000 });
    await store.put(long);
    for (let i = 0; i < 2000; i += 1) await store.put(ceremony({ clientId: 'c', expiresAt: now + 1000 }));
    now += 2000;
    for (let i = 0; i < 3000; i += 1) await store.put(ceremony({ clientId: 'c', expiresAt: now + 1000 }));
    // Without the full sweep the 2000 expired ones would still be held behind `long` (5001 entries).
    assert.ok(store.size <= 3001 + 1, `size ${store.size}`);
    assert.equal((await store.take('c', long.challenge, now)).state, 'taken');
    await store.close();
  });

  it('a used-marker belongs to its Client ID: the same challenge of another client is missing, not used', async () => {
    const store = new MemoryChallengeStore();
    const record = ceremony({ clientId: 'client-a', expiresAt: Date.now() + 60_000 });
    await store.put(record);
    assert.equal((await store.take('client-a', record.challenge, Date.now())).state, 'taken');
    assert.deepEqual(await store.take('client-a', record.challenge, Date.now()), { state: 'used' });
    assert.deepEqual(await store.take('client-b', record.challenge, Date.now()), { state: 'missing' });
    assert.deepEqual(await store.take('client-a', `${record.challenge}x`, Date.now()), { state: 'missing' });
    await store.close();
  });

  it('without a clock, sweeps with the latest time take was given', async () => {
    const store = new MemoryChallengeStore();
    const start = 1_700_000_000_000;
    for (let i = 0; i < 500; i += 1) await store.put(ceremony({ clientId: 'c', expiresAt: start + 1000 }));
    for (let i = 0; i < 500; i += 1) await store.take('c', `unknown-${i}`, start + 5000);
    assert.equal(store.size, 0);
    await store.close();
  });

  it('sweep keeps live entries and markers', async () => {
    const store = new MemoryChallengeStore();
    const live = ceremony({ clientId: 'c', expiresAt: 5000 });
    const taken = ceremony({ clientId: 'c', expiresAt: 5000 });
    const dead = ceremony({ clientId: 'c', expiresAt: 1000 });
    for (const r of [live, taken, dead]) await store.put(r);
    await store.take('c', taken.challenge, 10);
    store.sweep(2000);
    assert.equal(store.size, 2);
    assert.deepEqual(await store.take('c', taken.challenge, 2000), { state: 'used' });
    assert.deepEqual(await store.take('c', live.challenge, 2000), { state: 'taken', record: live });
    assert.deepEqual(await store.take('c', dead.challenge, 2000), { state: 'missing' });
    await store.close();
  });

  it("a stored ceremony is a copy: changing the caller's object changes nothing", async () => {
    const store = new MemoryChallengeStore();
    const record = ceremony({ allowCredentials: ['AAAA'] });
    await store.put(record);
    const copy = structuredClone(record);
    (record.allowCredentials as string[]).push('BBBB');
    assert.deepEqual(await store.take(record.clientId, record.challenge, Date.now()), { state: 'taken', record: copy });
    await store.close();
  });
});
