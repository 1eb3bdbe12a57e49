// What an import remembers of the records it accepted earlier in the same file, so that a record against an
// earlier one is judged as the store would judge it once the earlier one is written: the same passkey again
// is skipped, its id with another key or user is refused, a user with two handles (or a handle for two
// users) is refused, a user's passkeys are counted against the application's limit. Bounded (docs/decisions.md "Import: bounded memory"): a real run forgets after every
// batch it wrote, since the store then answers; a dry run, which writes nothing, keeps the most recent
// `capacity` of each and forgets the oldest.
import { createHash } from 'node:crypto';
import type { CredentialRecord } from '../stores/types.js';

/** How many credentials, and users, a dry run remembers (about 20 MB at most). */
export const DRY_RUN_MEMORY = 100_000;

/** What makes two records of one credential id the same passkey: its user and its key. */
export function credentialIdentity(record: Pick<CredentialRecord, 'userHandle' | 'username' | 'publicKey'>): string {
  const key = createHash('sha256').update(record.publicKey).digest('base64url');
  return `${record.userHandle}\u0000${record.username}\u0000${key}`;
}

export class FileMemory {
  readonly #credentials = new Map<string, string>();
  readonly #handleOfUser = new Map<string, string>();
  readonly #userOfHandle = new Map<string, string>();
  /** A user's passkeys (stored, and accepted from the file), by user handle, once one of theirs was accepted. */
  readonly #passkeys = new Map<string, number>();

  constructor(private readonly capacity: number) {}

  /** The identity (credentialIdentity) of the accepted record with this id, if remembered. */
  credential(credentialId: string): string | undefined {
    return this.#credentials.get(credentialId);
  }

  handleOf(username: string): string | undefined {
    return this.#handleOfUser.get(username);
  }

  userOf(userHandle: string): string | undefined {
    return this.#userOfHandle.get(userHandle);
  }

  passkeysOf(userHandle: string): number | undefined {
    return this.#passkeys.get(userHandle);
  }

  /** Remembers an accepted record; `passkeys`: how many its user has with it. */
  remember(record: CredentialRecord, identity: string, passkeys: number): void {
    this.#put(this.#passkeys, record.userHandle, passkeys);
    this.#put(this.#credentials, record.credentialId, identity);
    this.#put(this.#handleOfUser, record.username, record.userHandle);
    this.#put(this.#userOfHandle, record.userHandle, record.username);
  }

  clear(): void {
    this.#credentials.clear();
    this.#handleOfUser.clear();
    this.#userOfHandle.clear();
    this.#passkeys.clear();
  }

  #put<V>(map: Map<string, V>, key: string, value: V): void {
    map.delete(key);
    map.set(key, value);
    if (map.size > this.capacity) map.delete(map.keys().next().value as string);
  }
}
