// The key file (src/schemas/secrets.ts; mode 0600): read, checked, created on a first start (complete or not at
// all, never replacing one), and rotated by the CLI; and the checks of a key wherever it is written (the file
// or the environment). Never log a secret value: messages name variables, files and key ids only.

import { chmodSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { LocalBlobKey, Secrets } from '../service-config.js';
import { KEY_BYTES, KEY_ID_PATTERN, KEY_PATTERN, type SecretsFile } from '../schemas/secrets.js';
import type { Logger } from '../util/log.js';

export type { SecretsFile };

const KEY_ID = new RegExp(KEY_ID_PATTERN);
const KEY = new RegExp(KEY_PATTERN);

/** A problem with the secrets; the message is safe to print (it never holds a key). */
export class SecretsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretsError';
  }
}

export function checkedKey(id: string, key: string, where: string): LocalBlobKey {
  if (!KEY_ID.test(id)) throw new SecretsError(`${where}: the key id must be 1-32 letters, digits, "_" or "-"`);
  return { id, key: decodeKey(key, `${where} (id ${id})`) };
}

export function checkUniqueIds(keys: readonly LocalBlobKey[], where: string): void {
  const ids = keys.map((k) => k.id);
  const duplicate = ids.find((id, index) => ids.indexOf(id) !== index);
  if (duplicate !== undefined) throw new SecretsError(`${where}: the key id "${duplicate}" appears twice`);
}

/** Standard base64 or base64url of exactly 32 bytes (e.g. `openssl rand -base64 32`). */
export function decodeKey(text: string, where: string): Buffer {
  if (!KEY.test(text))
    throw new SecretsError(
      `${where}: must be ${KEY_BYTES} random bytes in base64 or base64url (e.g. from "openssl rand -base64 32")`,
    );
  return Buffer.from(text, 'base64');
}

export function readSecretsFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SecretsError(
      `cannot read the secrets file ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new SecretsError(
      `the secrets file ${file} is not valid JSON (it is never rewritten automatically: fix or restore it)`,
    );
  }
}

export function parseSecretsFile(value: unknown, file: string): Secrets {
  const where = `secrets file ${file}`;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new SecretsError(`${where}: must hold a JSON object`);
  const data = value as Record<string, unknown>;
  if (data.version !== 1) throw new SecretsError(`${where}: "version" must be 1`);
  if (typeof data.userHandleKey !== 'string') throw new SecretsError(`${where}: "userHandleKey" is missing`);
  const userHandleKey = decodeKey(data.userHandleKey, `${where}: userHandleKey`);
  if (!Array.isArray(data.localBlobKeys) || data.localBlobKeys.length === 0) {
    throw new SecretsError(`${where}: "localBlobKeys" must be a non-empty array of {id, key}, newest first`);
  }
  const localBlobKeys = data.localBlobKeys.map((entry: unknown, index) => {
    const item = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    if (typeof item.id !== 'string' || typeof item.key !== 'string')
      throw new SecretsError(`${where}: localBlobKeys[${index}] must be {id, key}`);
    return checkedKey(item.id, item.key, `${where}: localBlobKeys[${index}]`);
  });
  checkUniqueIds(localBlobKeys, where);
  return { userHandleKey, localBlobKeys };
}

function newKeyId(randomBytes: (size: number) => Buffer): string {
  return `k${randomBytes(6).toString('base64url')}`;
}

export function generateSecrets(randomBytes: (size: number) => Buffer): SecretsFile {
  return {
    version: 1,
    userHandleKey: randomBytes(KEY_BYTES).toString('base64url'),
    localBlobKeys: [{ id: newKeyId(randomBytes), key: randomBytes(KEY_BYTES).toString('base64url') }],
  };
}

/** Writes the file atomically (temporary file, then rename), readable by its owner only. */
export function writeSecretsFile(file: string, content: SecretsFile): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
}

/**
 * Creates the file only if there is none, complete or not at all: written under a temporary name, then
 * linked to its name (a link never replaces an existing file, unlike a rename). False when one existed.
 */
export function createSecretsFile(file: string, content: SecretsFile): boolean {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  // The new key id is random (and no secret): no two starts share a temporary name.
  const temporary = `${file}.${process.pid}.${content.localBlobKeys[0]?.id ?? 'new'}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  try {
    chmodSync(temporary, 0o600);
    linkSync(temporary, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new SecretsError(
      `cannot create the secrets file ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  } finally {
    rmSync(temporary, { force: true });
  }
}

/**
 * Creates a secrets file; refuses to overwrite one (that would change every user handle and make every
 * local blob unreadable).
 */
export function initSecretsFile(file: string, randomBytes: (size: number) => Buffer): void {
  if (!createSecretsFile(file, generateSecrets(randomBytes)))
    throw new SecretsError(`the secrets file ${file} exists already; it is never overwritten`);
}

/**
 * Adds a new newest local-blob key (it seals from the next start on) and keeps the older ones, so blobs
 * issued before still open. Returns the new key's id.
 */
export function rotateLocalBlobKey(file: string, randomBytes: (size: number) => Buffer): string {
  const stored = readSecretsFile(file);
  if (stored === undefined)
    throw new SecretsError(
      `the secrets file ${file} does not exist (it is created at the first start, or by "secrets init")`,
    );
  const current = parseSecretsFile(stored, file);
  let id = newKeyId(randomBytes);
  while (current.localBlobKeys.some((k) => k.id === id)) id = newKeyId(randomBytes);
  writeSecretsFile(file, {
    version: 1,
    userHandleKey: current.userHandleKey.toString('base64url'),
    localBlobKeys: [
      { id, key: randomBytes(KEY_BYTES).toString('base64url') },
      ...current.localBlobKeys.map((k) => ({ id: k.id, key: k.key.toString('base64url') })),
    ],
  });
  return id;
}

export function warnIfReadableByOthers(file: string, log: Logger | undefined): void {
  if (process.platform === 'win32') return;
  const mode = statSync(file).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    log?.warn({ file, mode: mode.toString(8) }, 'the secrets file is readable by other users; run chmod 600 on it');
  }
}
