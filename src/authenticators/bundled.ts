// The bundled lists under assets/aaguids/ (repository root), found by climbing from this module: it runs
// from dist/authenticators/, .build/src/authenticators/ or a helper's .build-<name>/src/authenticators/.
// Read once per process on first use: they are reference data shipped with the code, not configuration.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCatalog, parseNameList, parseProviderList, type AuthenticatorCatalog } from './catalog.js';

export const PROVIDERS_FILE = 'passkey-providers.json';
export const SECURITY_KEYS_FILE = 'security-keys.json';

let bundled: AuthenticatorCatalog | undefined;

/** The catalogue of the bundled lists. Throws when they are missing or broken (a packaging mistake). */
export function bundledCatalog(): AuthenticatorCatalog {
  bundled ??= loadCatalog(findAssetsFolder());
  return bundled;
}

export function loadCatalog(folder: string): AuthenticatorCatalog {
  const read = (file: string): unknown => JSON.parse(readFileSync(join(folder, file), 'utf8'));
  return createCatalog(
    parseProviderList(read(PROVIDERS_FILE), PROVIDERS_FILE),
    parseNameList(read(SECURITY_KEYS_FILE), SECURITY_KEYS_FILE),
  );
}

export function findAssetsFolder(start = dirname(fileURLToPath(import.meta.url))): string {
  let folder = start;
  for (let i = 0; i < 6; i += 1) {
    const candidate = join(folder, 'assets', 'aaguids');
    if (existsSync(join(candidate, PROVIDERS_FILE))) return candidate;
    folder = resolve(folder, '..');
  }
  throw new Error(`assets/aaguids/${PROVIDERS_FILE} not found above ${start}`);
}
