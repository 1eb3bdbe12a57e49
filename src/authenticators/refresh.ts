// Replaces a bundled list with a file the operator downloaded (scripts/refresh-aaguids.mjs): the file is
// checked exactly as the service reads it, so a broken or empty download never replaces a working list.

import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROVIDERS_FILE, SECURITY_KEYS_FILE } from './bundled.js';
import { CatalogError, parseNameList, parseProviderList } from './catalog.js';

export type ListKind = 'providers' | 'security-keys';

export interface RefreshResult {
  readonly file: string;
  readonly entries: number;
}

export function refreshList(kind: ListKind, downloaded: string, assetsFolder: string): RefreshResult {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(downloaded, 'utf8'));
  } catch (error) {
    throw new CatalogError(`${downloaded}: cannot be read as JSON (${(error as Error).message})`);
  }
  const entries = kind === 'providers' ? parseProviderList(json, downloaded) : parseNameList(json, downloaded);
  const file = join(assetsFolder, kind === 'providers' ? PROVIDERS_FILE : SECURITY_KEYS_FILE);
  // Sorted by AAGUID, so that a refresh shows in a diff as the entries that changed.
  const sorted = Object.fromEntries(
    Object.entries(json as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  writeFileSync(`${file}.new`, `${JSON.stringify(sorted, null, 2)}\n`);
  renameSync(`${file}.new`, file);
  return { file, entries: entries.size };
}
