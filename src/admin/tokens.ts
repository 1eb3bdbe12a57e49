// Admin tokens: high-entropy bearer tokens, shown once when the CLI creates them and stored only as their
// SHA-256 (a token has 256 bits of entropy, so a plain hash is enough: nothing to brute-force, no need for a
// slow KDF). The token file is JSON, written atomically with mode 0600.
import { createHash, timingSafeEqual } from 'node:crypto';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Runtime } from '../util/runtime.js';

/** Prefix that makes a leaked token recognisable (secret scanners) and says what it is. */
export const TOKEN_PREFIX = 'pks_admin_';

export interface AdminTokenInfo {
  /** Public identifier (appears in the audit log as `admin:<name>` with this id as target). */
  readonly id: string;
  readonly name: string;
  /** Epoch ms. */
  readonly createdAt: number;
}

interface StoredToken extends AdminTokenInfo {
  /** hex SHA-256 of the whole token text. */
  readonly sha256: string;
}

export interface AdminTokenStore {
  /** The token's info when `token` is a valid admin token. */
  verify(token: string): Promise<AdminTokenInfo | undefined>;
  /** Makes a new token; the text is returned once and never stored. */
  create(name: string): Promise<{ readonly token: string; readonly info: AdminTokenInfo }>;
  list(): Promise<AdminTokenInfo[]>;
  /** false if there was no such id. */
  revoke(id: string): Promise<boolean>;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function newToken(runtime: Runtime): { token: string; id: string } {
  return {
    token: `${TOKEN_PREFIX}${runtime.randomBytes(32).toString('base64url')}`,
    id: runtime.randomBytes(6).toString('hex'),
  };
}

function validName(name: string): string {
  const trimmed = name.trim();
  if (!/^[\x21-\x7e][\x20-\x7e]{0,63}$/.test(trimmed))
    throw new Error('a token name is 1 to 64 visible ASCII characters');
  return trimmed;
}

/** Compares hashes in constant time (the hashes are not secret, but it costs nothing). */
function findByHash(tokens: readonly StoredToken[], sha256: string): StoredToken | undefined {
  const wanted = Buffer.from(sha256, 'hex');
  let found: StoredToken | undefined;
  for (const entry of tokens) {
    const stored = Buffer.from(entry.sha256, 'hex');
    if (stored.length === wanted.length && timingSafeEqual(stored, wanted)) found = entry;
  }
  return found;
}

const info = ({ id, name, createdAt }: StoredToken): AdminTokenInfo => ({ id, name, createdAt });

export class MemoryAdminTokenStore implements AdminTokenStore {
  #tokens: StoredToken[] = [];

  constructor(private readonly runtime: Runtime) {}

  async verify(token: string): Promise<AdminTokenInfo | undefined> {
    if (!token.startsWith(TOKEN_PREFIX)) return undefined;
    const found = findByHash(this.#tokens, hashToken(token));
    return found && info(found);
  }

  async create(name: string) {
    const { token, id } = newToken(this.runtime);
    const stored: StoredToken = { id, name: validName(name), createdAt: this.runtime.now(), sha256: hashToken(token) };
    this.#tokens.push(stored);
    return { token, info: info(stored) };
  }

  async list(): Promise<AdminTokenInfo[]> {
    return this.#tokens.map(info);
  }

  async revoke(id: string): Promise<boolean> {
    const before = this.#tokens.length;
    this.#tokens = this.#tokens.filter((t) => t.id !== id);
    return this.#tokens.length !== before;
  }
}

/**
 * Tokens in a JSON file `{"tokens": [{id, name, createdAt, sha256}]}`. The server re-reads the file when it
 * changed (so `admin token create` works while the service runs) and never writes it; the CLI writes it.
 */
export class FileAdminTokenStore implements AdminTokenStore {
  #cache: { readonly text: string; readonly tokens: StoredToken[] } | undefined;

  constructor(
    private readonly path: string,
    private readonly runtime: Runtime,
  ) {}

  async verify(token: string): Promise<AdminTokenInfo | undefined> {
    if (!token.startsWith(TOKEN_PREFIX)) return undefined;
    const found = findByHash(await this.#read(), hashToken(token));
    return found && info(found);
  }

  async create(name: string) {
    const tokens = await this.#read();
    const { token, id } = newToken(this.runtime);
    const stored: StoredToken = { id, name: validName(name), createdAt: this.runtime.now(), sha256: hashToken(token) };
    await this.#write([...tokens, stored]);
    return { token, info: info(stored) };
  }

  async list(): Promise<AdminTokenInfo[]> {
    return (await this.#read()).map(info);
  }

  async revoke(id: string): Promise<boolean> {
    const tokens = await this.#read();
    const kept = tokens.filter((t) => t.id !== id);
    if (kept.length === tokens.length) return false;
    await this.#write(kept);
    return true;
  }

  async #read(): Promise<StoredToken[]> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    if (this.#cache?.text === text) return this.#cache.tokens;
    const tokens = parseTokenFile(text, this.path);
    this.#cache = { text, tokens };
    return tokens;
  }

  async #write(tokens: readonly StoredToken[]): Promise<void> {
    const text = `${JSON.stringify({ tokens }, null, 2)}\n`;
    const temporary = `${this.path}.${process.pid}.tmp`;
    // The data folder may not exist yet (the CLI before the first start).
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    await writeFile(temporary, text, { mode: 0o600 });
    await chmod(temporary, 0o600);
    await rename(temporary, this.path);
    this.#cache = { text, tokens: [...tokens] };
  }
}

function parseTokenFile(text: string, path: string): StoredToken[] {
  const fail = (why: string): never => {
    throw new Error(`admin token file ${path}: ${why}`);
  };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return fail('not valid JSON');
  }
  const list = (value as { tokens?: unknown } | null)?.tokens;
  if (!Array.isArray(list)) return fail('expected {"tokens": [...]}');
  return list.map((entry, i) => {
    const e = entry as Partial<StoredToken> | null;
    if (
      !e ||
      typeof e.id !== 'string' ||
      typeof e.name !== 'string' ||
      typeof e.createdAt !== 'number' ||
      typeof e.sha256 !== 'string' ||
      !/^[0-9a-f]{64}$/.test(e.sha256)
    ) {
      return fail(`entry ${i} is not {id, name, createdAt, sha256}`);
    }
    return { id: e.id, name: e.name, createdAt: e.createdAt, sha256: e.sha256 };
  });
}
