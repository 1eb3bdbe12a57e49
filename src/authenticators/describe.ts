// What a person is shown about a credential's authenticator: a name and icons by AAGUID, and whether the
// AAGUID behind them was proven. FIDO metadata names the model first (its description, recorded at
// registration when the application loaded a BLOB), then the bundled lists.

import type { AuthenticatorCatalog } from './catalog.js';

export interface AuthenticatorDescription {
  /** null when no source knows the AAGUID. */
  readonly name: string | null;
  readonly iconLight: string | null;
  readonly iconDark: string | null;
  /**
   * true only when a trusted attestation proved the AAGUID. Otherwise (none or self attestation, an
   * untrusted chain) the authenticator chose its AAGUID itself, and the name is what it claims to be.
   */
  readonly verified: boolean;
}

export interface AuthenticatorFacts {
  readonly aaguid: string;
  /** The metadata statement's description, when the application's metadata knew the AAGUID. */
  readonly metadataName?: string | null | undefined;
  /** Whether a trusted attestation proved the AAGUID. */
  readonly proven: boolean;
}

export function describeAuthenticator(
  facts: AuthenticatorFacts,
  catalog: AuthenticatorCatalog,
): AuthenticatorDescription {
  const entry = catalog.find(facts.aaguid);
  return {
    name: facts.metadataName || entry?.name || null,
    iconLight: entry?.iconLight ?? null,
    iconDark: entry?.iconDark ?? null,
    verified: facts.proven,
  };
}
