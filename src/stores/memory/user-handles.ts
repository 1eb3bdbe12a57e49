// The user handles imports kept (src/stores/types.ts ImportedUserHandle), in process memory: per application,
// user name → handle and handle → user name, both unique.
import type { ImportedUserHandle } from '../types.js';

const pairKey = (clientId: string, value: string): string => `${clientId}\u0000${value}`;

export class MemoryUserHandles {
  readonly #byName = new Map<string, string>();
  readonly #byHandle = new Map<string, string>();

  get(clientId: string, username: string): string | undefined {
    return this.#byName.get(pairKey(clientId, username));
  }

  /** The kept handles whose user name is in `usernames` or whose handle is in `handles`. */
  matching(clientId: string, usernames: readonly string[], handles: readonly string[]): ImportedUserHandle[] {
    const found = new Map<string, string>();
    for (const username of usernames) {
      const userHandle = this.get(clientId, username);
      if (userHandle !== undefined) found.set(username, userHandle);
    }
    for (const userHandle of handles) {
      const username = this.#byHandle.get(pairKey(clientId, userHandle));
      if (username !== undefined) found.set(username, userHandle);
    }
    return [...found].map(([username, userHandle]) => ({ username, userHandle }));
  }

  /** Whether it can be kept: neither its name nor its handle is kept with another. */
  fits(clientId: string, entry: ImportedUserHandle): boolean {
    const handle = this.get(clientId, entry.username);
    const name = this.#byHandle.get(pairKey(clientId, entry.userHandle));
    return (handle === undefined || handle === entry.userHandle) && (name === undefined || name === entry.username);
  }

  /** Keeps it (the caller checked `fits`). */
  add(clientId: string, entry: ImportedUserHandle): void {
    this.#byName.set(pairKey(clientId, entry.username), entry.userHandle);
    this.#byHandle.set(pairKey(clientId, entry.userHandle), entry.username);
  }

  deleteHandle(clientId: string, userHandle: string): void {
    const username = this.#byHandle.get(pairKey(clientId, userHandle));
    if (username === undefined) return;
    this.#byHandle.delete(pairKey(clientId, userHandle));
    this.#byName.delete(pairKey(clientId, username));
  }

  deleteApplication(clientId: string): void {
    const prefix = pairKey(clientId, '');
    for (const key of [...this.#byName.keys()]) if (key.startsWith(prefix)) this.#byName.delete(key);
    for (const key of [...this.#byHandle.keys()]) if (key.startsWith(prefix)) this.#byHandle.delete(key);
  }

  clear(): void {
    this.#byName.clear();
    this.#byHandle.clear();
  }
}
