// A user's credentials as a sign-in's options read them, kept in this process until its result, by (Client
// ID, challenge): a sign-in by name then reads the credential store once instead of twice (the read is about
// a twentieth of a sign-in's CPU, docs/performance.md). What the result decides from a snapshot is confirmed
// by its write: `recordUse` changes the row only if the counter and the authenticator status are still the
// ones the snapshot held, and the row still exists; when it does not, the result reads afresh and decides
// again (assertion-result.ts). A result served by another instance (shared ceremonies), or one whose
// snapshot was evicted, reads as before.
//
// Bounded: at most `capacity` snapshots (the oldest go first), each gone when its result takes it or, once
// its ceremony expired, at the next `keep` that finds it oldest.

import type { CredentialRecord } from '../stores/types.js';

export const DEFAULT_SNAPSHOT_CAPACITY = 10_000;

interface Snapshot {
  readonly records: readonly CredentialRecord[];
  readonly expiresAt: number;
}

export class CredentialSnapshots {
  readonly #entries = new Map<string, Snapshot>();
  readonly #capacity: number;

  constructor(capacity = DEFAULT_SNAPSHOT_CAPACITY) {
    this.#capacity = Math.max(1, capacity);
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Keeps what the options of this ceremony read (possibly nothing: an unknown user's empty list). */
  keep(
    clientId: string,
    challenge: string,
    records: readonly CredentialRecord[],
    { now, expiresAt }: { readonly now: number; readonly expiresAt: number },
  ): void {
    const id = `${clientId}\u0000${challenge}`;
    this.#entries.delete(id);
    this.#entries.set(id, { records, expiresAt });
    // Map keeps insertion order: the first entry is the oldest. Expired ones leave from the front (a few per
    // call), and the oldest of any leaves once the map is full.
    for (const [oldest, snapshot] of this.#entries) {
      if (this.#entries.size <= this.#capacity && snapshot.expiresAt >= now) break;
      this.#entries.delete(oldest);
    }
  }

  /** The snapshot of this ceremony, removed; undefined when none was kept, it was evicted or it expired. */
  take(clientId: string, challenge: string, now: number): readonly CredentialRecord[] | undefined {
    const id = `${clientId}\u0000${challenge}`;
    const snapshot = this.#entries.get(id);
    if (snapshot === undefined) return undefined;
    this.#entries.delete(id);
    return now <= snapshot.expiresAt ? snapshot.records : undefined;
  }
}
