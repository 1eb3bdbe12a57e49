// Imported credential public keys, by (Client ID, credential id). Importing a key costs more than the
// ECDSA verify itself (architecture.md principle 10), so a signing-in credential is imported once.
// Bounded: past `capacity` the least recently used entry goes. An entry also remembers the COSE bytes it
// came from, so a credential deleted and registered again under the same id never meets a stale key.

import type { PublicKey } from '../webauthn/cose.js';
import { importCosePublicKey } from '../webauthn/cose-key.js';

export const DEFAULT_KEY_CACHE_CAPACITY = 10_000;

interface Entry {
  readonly cose: Buffer;
  readonly key: PublicKey;
}

export class KeyCache {
  readonly #entries = new Map<string, Entry>();
  readonly #capacity: number;
  #imports = 0;

  constructor(capacity = DEFAULT_KEY_CACHE_CAPACITY) {
    this.#capacity = Math.max(1, capacity);
  }

  /** How many keys were imported (not served from the cache): for tests of the cache. */
  get imports(): number {
    return this.#imports;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The key for these COSE bytes (a KeyObject, or an ML-DSA key); throws the importer's FidoError for a bad key. */
  get(clientId: string, credentialId: string, cose: Uint8Array): PublicKey {
    const id = `${clientId}\u0000${credentialId}`;
    const bytes = Buffer.from(cose.buffer, cose.byteOffset, cose.byteLength);
    const hit = this.#entries.get(id);
    if (hit?.cose.equals(bytes)) {
      // Re-insert: Map keeps insertion order, so the oldest entry is always the first one.
      this.#entries.delete(id);
      this.#entries.set(id, hit);
      return hit.key;
    }
    const key = importCosePublicKey(bytes).key;
    this.#imports++;
    this.#entries.delete(id);
    this.#entries.set(id, { cose: Buffer.from(bytes), key });
    while (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
    return key;
  }
}
