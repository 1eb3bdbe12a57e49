// A user's credentials as a sign-in's options read them, kept in this process until its result, by (Client
// ID, challenge): a sign-in by name then reads the credential store once instead of twice (the read is about
// a twentieth of a sign-in's CPU, docs/performance.md). What the result decides from a snapshot is confirmed
// by its write: `recordUse` changes the row only if the counter and the authenticator status are still the
// ones the snapshot held, and the row still exists; when it does not, the result reads afresh and decides
// again (assertion-result.ts). A result served by another instance (shared ceremonies), or one whose
// snapshot was evicted or never kept, reads as before.
//
// Bounded three ways (docs/performance.md, "Credential snapshots: their bounds"), so that options calls by
// the name of a user with many passkeys cannot fill the heap (issue 35): at most `capacity` snapshots; none
// of a user with more than `maxRecords` credentials (their result reads the store); at most `maxBytes` of
// estimated size in all (the oldest go first). Each is gone when its result takes it or, once its ceremony
// expired, at the next `keep` that finds it oldest.

import type { CredentialRecord } from '../stores/types.js';

export interface SnapshotBounds {
  /** At most this many snapshots at once. */
  readonly capacity: number;
  /** A user with more credentials than this is not snapshotted: their sign-in's result reads the store. */
  readonly maxRecords: number;
  /** The estimated size of every snapshot kept, together (snapshotBytes), at most this many bytes. */
  readonly maxBytes: number;
}

export const SNAPSHOT_BOUNDS: SnapshotBounds = { capacity: 10_000, maxRecords: 16, maxBytes: 16 * 1024 * 1024 };

/**
 * What one credential read from a store costs on the heap besides its strings' characters and its key's
 * bytes: the object and its fields, the key's Uint8Array, the transports' array. A whole credential of a
 * 77-byte key read from SQLite measured about 790 bytes on Node.js 20, which the estimate below puts at
 * about 950 (test/ceremonies/snapshot-heap.test.ts measures it again and checks the estimate is not below).
 */
export const RECORD_OVERHEAD_BYTES = 640;

/** The estimated heap size of a snapshot of `records`: what `maxBytes` counts. */
export function snapshotBytes(records: readonly CredentialRecord[]): number {
  let bytes = 64;
  for (const r of records) {
    bytes += RECORD_OVERHEAD_BYTES + (r.publicKey?.length ?? 0);
    // Two bytes a character: a string holding anything outside Latin-1 is stored so.
    for (const text of [r.credentialId, r.userHandle, r.username, r.nickname, r.displayName, r.authenticatorName])
      bytes += 2 * (text?.length ?? 0);
  }
  return bytes;
}

interface Snapshot {
  readonly records: readonly CredentialRecord[];
  readonly expiresAt: number;
  readonly bytes: number;
}

export class CredentialSnapshots {
  readonly #entries = new Map<string, Snapshot>();
  readonly #bounds: SnapshotBounds;
  #bytes = 0;

  constructor(bounds: Partial<SnapshotBounds> = {}) {
    const { capacity, maxRecords, maxBytes } = { ...SNAPSHOT_BOUNDS, ...bounds };
    this.#bounds = { capacity: Math.max(1, capacity), maxRecords: Math.max(0, maxRecords), maxBytes };
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The estimated size of the snapshots kept now (at most `maxBytes`). */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Keeps what the options of this ceremony read (possibly nothing: an unknown user's empty list), unless it
   * is over the bounds: then the result reads the store.
   */
  keep(
    clientId: string,
    challenge: string,
    records: readonly CredentialRecord[],
    { now, expiresAt }: { readonly now: number; readonly expiresAt: number },
  ): void {
    const id = `${clientId}\u0000${challenge}`;
    this.#remove(id);
    const bytes = records.length > this.#bounds.maxRecords ? Number.POSITIVE_INFINITY : snapshotBytes(records);
    if (bytes <= this.#bounds.maxBytes) {
      this.#entries.set(id, { records, expiresAt, bytes });
      this.#bytes += bytes;
    }
    // Map keeps insertion order: the first entry is the oldest. Expired ones leave from the front (a few per
    // call), and the oldest of any leaves while the map is over a bound.
    for (const [oldest, snapshot] of this.#entries) {
      const over = this.#entries.size > this.#bounds.capacity || this.#bytes > this.#bounds.maxBytes;
      if (!over && snapshot.expiresAt >= now) break;
      this.#remove(oldest);
    }
  }

  /** The snapshot of this ceremony, removed; undefined when none was kept, it was evicted or it expired. */
  take(clientId: string, challenge: string, now: number): readonly CredentialRecord[] | undefined {
    const snapshot = this.#remove(`${clientId}\u0000${challenge}`);
    if (snapshot === undefined) return undefined;
    return now <= snapshot.expiresAt ? snapshot.records : undefined;
  }

  #remove(id: string): Snapshot | undefined {
    const snapshot = this.#entries.get(id);
    if (snapshot === undefined) return undefined;
    this.#entries.delete(id);
    this.#bytes -= snapshot.bytes;
    return snapshot;
  }
}
