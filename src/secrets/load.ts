// The service's secrets: the user-handle HMAC key and the local-blob keys (newest first, with ids for
// rotation). They come from environment variables or the key file (key-file.ts); a single instance on
// SQLite generates the file on first start. Several instances sharing PostgreSQL must share the secrets
// too, so there they must be configured: generating them per instance would give each instance other
// user handles and blobs the others cannot open.

import type { LocalBlobKey, Secrets, ServiceConfig } from '../service-config.js';
import type { Logger } from '../util/log.js';
import {
  checkedKey,
  checkUniqueIds,
  createSecretsFile,
  decodeKey,
  generateSecrets,
  parseSecretsFile,
  readSecretsFile,
  SecretsError,
  warnIfReadableByOthers,
} from './key-file.js';

export { initSecretsFile, rotateLocalBlobKey, SecretsError, writeSecretsFile } from './key-file.js';
export type { LocalBlobKey, Secrets } from '../service-config.js';
export type { SecretsFile } from './key-file.js';

export const USER_HANDLE_KEY_ENV = 'PASSKEY_USER_HANDLE_KEY';
export const LOCAL_BLOB_KEYS_ENV = 'PASSKEY_LOCAL_BLOB_KEYS';

export interface LoadSecretsOptions {
  readonly config: Pick<ServiceConfig, 'secretsFile' | 'database'>;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly randomBytes: (size: number) => Buffer;
  readonly log?: Logger;
}

/**
 * Environment variables win over the file, each secret on its own. Without either: generate the file
 * (SQLite), or refuse (PostgreSQL).
 */
export function loadSecrets(options: LoadSecretsOptions): Secrets {
  const { config, env, log } = options;
  const fromEnv = secretsFromEnv(env);
  if (fromEnv.userHandleKey !== undefined && fromEnv.localBlobKeys !== undefined) {
    return { userHandleKey: fromEnv.userHandleKey, localBlobKeys: fromEnv.localBlobKeys };
  }
  const file = config.secretsFile;
  let stored = readSecretsFile(file);
  if (stored === undefined) {
    if (config.database.kind === 'postgres') {
      throw new SecretsError(
        `Secrets are not configured. With a PostgreSQL database, several instances share the data, so they must share ` +
          `the secrets: set ${USER_HANDLE_KEY_ENV} and ${LOCAL_BLOB_KEYS_ENV}, or give every instance the same key file ` +
          `(secretsFile, now ${file}; create one with "passkey-server secrets init --file <path>"). ` +
          `They are never generated on their own in this setup.`,
      );
    }
    const generated = generateSecrets(options.randomBytes);
    if (createSecretsFile(file, generated)) {
      log?.info(
        { file, localBlobKeyIds: generated.localBlobKeys.map((k) => k.id) },
        'generated new secrets (first start)',
      );
    }
    // Always what the file holds: another process starting on the same new folder may have created it first.
    stored = readSecretsFile(file);
  }
  warnIfReadableByOthers(file, log);
  const parsed = parseSecretsFile(stored, file);
  return {
    userHandleKey: fromEnv.userHandleKey ?? parsed.userHandleKey,
    localBlobKeys: fromEnv.localBlobKeys ?? parsed.localBlobKeys,
  };
}

function secretsFromEnv(env: Readonly<Record<string, string | undefined>>): Partial<Secrets> {
  const handle = env[USER_HANDLE_KEY_ENV];
  const blobs = env[LOCAL_BLOB_KEYS_ENV];
  return {
    userHandleKey: handle ? decodeKey(handle.trim(), USER_HANDLE_KEY_ENV) : undefined,
    localBlobKeys: blobs ? parseKeyList(blobs) : undefined,
  };
}

/** `id:key,id:key`, newest first (the first seals, all open). */
function parseKeyList(text: string): LocalBlobKey[] {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0)
    throw new SecretsError(
      `${LOCAL_BLOB_KEYS_ENV} holds no key; expected "<id>:<base64 32-byte key>[,<id>:<key>…]", newest first`,
    );
  const keys = entries.map((entry, index) => {
    const cut = entry.indexOf(':');
    if (cut < 0)
      throw new SecretsError(
        `${LOCAL_BLOB_KEYS_ENV} entry ${index + 1} has no "<id>:" prefix; expected "<id>:<base64 32-byte key>"`,
      );
    return checkedKey(entry.slice(0, cut), entry.slice(cut + 1), `${LOCAL_BLOB_KEYS_ENV} entry ${index + 1}`);
  });
  checkUniqueIds(keys, LOCAL_BLOB_KEYS_ENV);
  return keys;
}
