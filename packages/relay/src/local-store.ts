// Local variant: the service keeps no public key, so the relay keeps the `localhost` blob it returns,
// per user and credential, and sends it back on every assertion result (spec, "Relay behaviour for the
// local variant"); by credential id too, for a sign-in without a user name. The store is pluggable; memory
// and a JSON file are provided.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface LocalCredential {
  /** The full `username` (`<user>#localhost`). */
  readonly username: string;
  /** The credential id as the browser sent it (`id`, base64url). */
  readonly credentialId: string;
  /** The opaque string from the attestation result's `localhost` field. */
  readonly localhost: string;
  /** `response.transports` of the registration, reused in `allowCredentials`. */
  readonly transports: readonly string[];
  /** Epoch milliseconds. */
  readonly createdAt: number;
  /**
   * The user handle (base64url) the service named in the attestation result, when it named one: a sign-in
   * without a user name picks, among blobs filed under one credential id, the one of the user who signs in.
   */
  readonly userHandle?: string;
  /** What the registration's answer said of the passkey, for the user's list (`<passkey-list>`). */
  readonly facts?: LocalPasskeyFacts;
  /** Epoch milliseconds of the last sign-in through the relay. */
  readonly lastUsedAt?: number;
  /** The name its user gave it (`<prefix>/credentials/rename`); absent or null when none. */
  readonly nickname?: string | null;
}

export interface LocalPasskeyFacts {
  readonly aaguid: string;
  readonly authenticatorName: string | null;
  readonly authenticatorVerified: boolean;
  readonly backupEligible: boolean;
  readonly backupState: boolean;
}

export interface LocalCredentialStore {
  /** Saves or replaces the entry for (username, credentialId). Resolves once it is durable. */
  save(credential: LocalCredential): Promise<void>;
  find(username: string, credentialId: string): Promise<LocalCredential | undefined>;
  /** The user's credentials, oldest first. */
  list(username: string): Promise<readonly LocalCredential[]>;
  /**
   * The entry of a credential id, whoever owns it. Optional: without it a sign-in without a user name (the
   * browser chose the credential) and a result after a relay restart cannot find the blob. Another user may
   * register the same id (an authenticator can claim any), so several entries may share it: answer the one
   * whose `userHandle` is the given one (the assertion's), else the first filed, never a later one in its
   * place (MemoryLocalStore and FileLocalStore do so).
   */
  findById?(credentialId: string, userHandle?: string): Promise<LocalCredential | undefined>;
  /** Removes the entry of (username, credentialId); false when there was none. Optional: without it a user cannot delete a passkey. */
  delete?(username: string, credentialId: string): Promise<boolean>;
}

const keyOf = (username: string, credentialId: string) => JSON.stringify([username, credentialId]);

export class MemoryLocalStore implements LocalCredentialStore {
  readonly #entries = new Map<string, LocalCredential>();

  async save(credential: LocalCredential): Promise<void> {
    this.#entries.set(keyOf(credential.username, credential.credentialId), {
      ...credential,
      transports: [...credential.transports],
    });
  }

  async find(username: string, credentialId: string): Promise<LocalCredential | undefined> {
    return this.#entries.get(keyOf(username, credentialId));
  }

  async list(username: string): Promise<readonly LocalCredential[]> {
    return [...this.#entries.values()].filter((entry) => entry.username === username);
  }

  async findById(credentialId: string, userHandle?: string): Promise<LocalCredential | undefined> {
    return pickById(this.#entries.values(), credentialId, userHandle);
  }

  async delete(username: string, credentialId: string): Promise<boolean> {
    return this.#entries.delete(keyOf(username, credentialId));
  }
}

/**
 * The entry of a credential id for findById: the one of the signing user (`userHandle`, from the assertion)
 * when one was filed with it, else the first filed. A later registration of the same id by someone else
 * (an authenticator can claim any id) must not replace or shadow the first user's blob (issue 23).
 */
export function pickById(
  entries: Iterable<LocalCredential>,
  credentialId: string,
  userHandle?: string,
): LocalCredential | undefined {
  let first: LocalCredential | undefined;
  let own: LocalCredential | undefined;
  for (const entry of entries) {
    if (entry.credentialId !== credentialId) continue;
    if (!first || entry.createdAt < first.createdAt) first = entry;
    if (userHandle !== undefined && entry.userHandle === userHandle && (!own || entry.createdAt < own.createdAt))
      own = entry;
  }
  return own ?? first;
}

interface FileShape {
  readonly version: 1;
  readonly credentials: LocalCredential[];
}

/**
 * One JSON file, read once, rewritten whole on each save (write to a temporary file, then rename, so a
 * crash never leaves half a file). Saves are queued so two registrations never overwrite each other.
 * Meant for development, like the local variant itself.
 */
export class FileLocalStore implements LocalCredentialStore {
  readonly #path: string;
  #loaded: Promise<Map<string, LocalCredential>> | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(path: string) {
    this.#path = path;
  }

  async save(credential: LocalCredential): Promise<void> {
    await this.#rewrite((entries) => {
      entries.set(keyOf(credential.username, credential.credentialId), {
        ...credential,
        transports: [...credential.transports],
      });
      return true;
    });
  }

  async delete(username: string, credentialId: string): Promise<boolean> {
    return this.#rewrite((entries) => entries.delete(keyOf(username, credentialId)));
  }

  /** One change at a time (queued), the file rewritten whole when `change` changed something. */
  #rewrite(change: (entries: Map<string, LocalCredential>) => boolean): Promise<boolean> {
    const run = this.#queue.then(async () => {
      const entries = await this.#entries();
      if (!change(entries)) return false;
      const shape: FileShape = { version: 1, credentials: [...entries.values()] };
      await mkdir(dirname(this.#path), { recursive: true });
      const temporary = `${this.#path}.${randomBytes(6).toString('hex')}.tmp`;
      await writeFile(temporary, `${JSON.stringify(shape, null, 2)}\n`, { mode: 0o600 });
      await rename(temporary, this.#path);
      return true;
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async find(username: string, credentialId: string): Promise<LocalCredential | undefined> {
    return (await this.#entries()).get(keyOf(username, credentialId));
  }

  async list(username: string): Promise<readonly LocalCredential[]> {
    return [...(await this.#entries()).values()].filter((entry) => entry.username === username);
  }

  async findById(credentialId: string, userHandle?: string): Promise<LocalCredential | undefined> {
    return pickById((await this.#entries()).values(), credentialId, userHandle);
  }

  #entries(): Promise<Map<string, LocalCredential>> {
    this.#loaded ??= this.#load();
    return this.#loaded;
  }

  async #load(): Promise<Map<string, LocalCredential>> {
    let text: string;
    try {
      text = await readFile(this.#path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
      throw error;
    }
    const shape = JSON.parse(text) as Partial<FileShape>;
    if (shape.version !== 1 || !Array.isArray(shape.credentials))
      throw new Error(`${this.#path} is not a relay credential file`);
    return new Map(shape.credentials.map((entry) => [keyOf(entry.username, entry.credentialId), entry]));
  }
}
