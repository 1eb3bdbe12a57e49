// Issue 35 item 2, the review's load replayed: 700 passkeys under one name (maxPasskeysPerUser raised for it),
// thousands of assertion options calls by that name over the real socket, on a real SQLite file. Before the
// bounds each call kept the 700 credentials it read for its result (src/ceremonies/credential-snapshots.ts),
// about 7,600 calls filled the heap and the process died. Now: no snapshot is kept for that user (more than
// `maxRecords` credentials), the snapshots never hold more than `maxBytes`, and the heap, measured after a
// collection, grows by what the pending ceremonies hold (each lists the 700 ids until it expires), a small
// fraction of what 700 kept credentials a call would cost, and no further once the first round expired.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { CredentialSnapshots, SNAPSHOT_BOUNDS, snapshotBytes } from '../../src/ceremonies/credential-snapshots.js';
import type { CredentialRecord } from '../../src/stores/types.js';
import { applicationConfig, CLIENT_ID, expectOk, PATHS, START, username } from '../support/harness.js';
import { SocketHarness } from '../support/socket-harness.js';
import { BACKENDS, type BackendStores } from '../support/backends.js';
import { credential } from '../support/admin-fixtures.js';

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

const PASSKEYS = 700;
/** Options calls per round, and at once. */
const CALLS = 1_000;
const PARALLEL = 8;
const VICTIM = username('victim');

function heapUsed(): number {
  for (let i = 0; i < 3; i++) collect();
  return process.memoryUsage().heapUsed;
}

/** A stored passkey of the victim, as the store would hold a registered one (its key is never verified here). */
function passkey(userHandle: string, i: number): CredentialRecord {
  return credential({
    clientId: CLIENT_ID,
    credentialId: randomBytes(32).toString('base64url'),
    userHandle,
    username: VICTIM,
    publicKey: randomBytes(77),
    transports: ['hybrid', 'internal'],
    aaguid: '00000000-0000-0000-0000-000000000000',
    createdAt: START + i,
    displayName: 'Victim',
  });
}

describe("the review's load: 700 passkeys under one name, thousands of options calls (SQLite, real socket)", () => {
  const sqlite = BACKENDS.find((b) => b.name === 'sqlite')!;
  const snapshots = new CredentialSnapshots();
  let stores: BackendStores;
  let h: SocketHarness;
  let userHandle: string;

  before(async () => {
    let clock: () => number = () => START;
    stores = await sqlite.open(() => clock());
    // The ceremonies in memory, as the default configuration keeps them (`challenges: "memory"`).
    h = await SocketHarness.start({
      apps: [applicationConfig({ maxPasskeysPerUser: 1_000 })],
      credentials: stores.credentials,
      snapshots,
    });
    clock = h.clock.now;
    userHandle = expectOk(await h.post(PATHS.attestationOptions, { username: VICTIM })).user.id;
    await Promise.all(Array.from({ length: PASSKEYS }, (_, i) => stores.credentials.create(passkey(userHandle, i))));
  });
  after(async () => {
    await h?.close();
    await stores?.close();
  });

  /** `CALLS` options calls by the victim's name, `PARALLEL` at a time; each lists the 700. */
  async function round(): Promise<void> {
    const kept = snapshots.size;
    let next = 0;
    const worker = async () => {
      while (next < CALLS) {
        next++;
        const answer = expectOk(await h.post(PATHS.assertionOptions, { username: VICTIM }));
        assert.equal(answer.allowCredentials.length, PASSKEYS);
        // The bound on the snapshots, as behaviour: none kept for this user, never over maxBytes.
        assert.ok(snapshots.size <= kept);
        assert.ok(snapshots.bytes <= SNAPSHOT_BOUNDS.maxBytes);
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
  }

  it('keeps no snapshot of a user over maxRecords; a user with a few passkeys is still kept', async () => {
    const few = username('few');
    const handle = expectOk(await h.post(PATHS.attestationOptions, { username: few })).user.id;
    await stores.credentials.create({ ...passkey(handle, 0), username: few });
    expectOk(await h.post(PATHS.assertionOptions, { username: few }));
    assert.equal(snapshots.size, 1);
    expectOk(await h.post(PATHS.assertionOptions, { username: VICTIM }));
    assert.equal(snapshots.size, 1, 'the 700 are not kept');
  });

  it('the heap stays bounded: a fraction of 700 kept credentials a call, and no growth once ceremonies expire', async () => {
    // What the unbounded snapshots cost: one list of the 700 as the store reads it, held.
    const held: CredentialRecord[][] = [];
    const empty = heapUsed();
    for (let i = 0; i < 20; i++) held.push(await stores.credentials.listByUser(CLIENT_ID, userHandle));
    const perList = (heapUsed() - empty) / held.length;
    assert.ok(
      snapshotBytes(held[0]!) >= perList,
      `the estimate ${snapshotBytes(held[0]!)} is not below the measured ${Math.round(perList)} bytes`,
    );
    held.length = 0;

    const base = heapUsed();
    await round();
    const first = heapUsed() - base;
    const unbounded = CALLS * perList;
    assert.ok(
      first < unbounded / 5,
      `grew ${mib(first)} after ${CALLS} calls; 700 kept credentials a call would hold ${mib(unbounded)}`,
    );
    // The first round's ceremonies expire; a second round replaces them instead of adding to them.
    h.clock.advance(h.deps.config.applications[0]!.timeoutMs + 1);
    await round();
    const second = heapUsed() - base;
    assert.ok(
      second < first * 1.5 + 8 * 1024 * 1024,
      `grew ${mib(second)} after two rounds against ${mib(first)} after one: the heap is not bounded`,
    );
    console.log(
      `heap: ${mib(perList)} per list of ${PASSKEYS}; after ${CALLS} calls +${mib(first)}, after ${2 * CALLS} +${mib(second)}; unbounded snapshots would hold ${mib(unbounded)} after ${CALLS}`,
    );
  });
});

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
