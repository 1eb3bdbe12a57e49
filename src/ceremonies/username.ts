// `username` is `<user>#<domain>` (specification "Endpoints"; docs/decisions.md "username and user.id").
// The host part chooses the variant: the application's domain → standard, `localhost` → local.

import type { Variant } from '../service-config.js';
import { FidoError } from '../errors/catalogue.js';
import type { Application } from './deps.js';

export const LOCAL_RP_ID = 'localhost';

export interface ParsedUsername {
  /** The full username as sent: the key of everything stored for this user. */
  readonly username: string;
  /** The text before the last '#'; empty for a sign-in without a user name (`#<domain>`, `#localhost`). */
  readonly user: string;
  readonly variant: Variant;
  /** The RP ID of the ceremony: the application's domain, or `localhost`. */
  readonly rpId: string;
}

/**
 * Splits at the LAST '#' (a user name may itself contain '#'), then checks the domain and that the
 * application and the deployment allow the variant it selects. An empty user part is a sign-in without a
 * user name: only where `allowEmptyUser` (assertion options); a registration always names its user.
 */
export function parseUsername(
  username: string,
  application: Application,
  localEnabled: boolean,
  allowEmptyUser = false,
): ParsedUsername {
  const at = username.lastIndexOf('#');
  if (at < 0) throw new FidoError('INVALID_USERNAME', 'username must be "<user>#<domain>" (no "#" found).');
  const user = username.slice(0, at);
  const domain = username.slice(at + 1);
  if (user.length === 0 && !allowEmptyUser) {
    throw new FidoError('INVALID_USERNAME', 'The user part before "#" is empty (only a sign-in may leave it empty).');
  }

  // `localhost` always means the local variant, even for an application whose domain is localhost.
  if (domain === LOCAL_RP_ID) {
    if (!localEnabled) throw new FidoError('LOCAL_VARIANT_DISABLED');
    if (!application.variants.includes('local')) {
      throw new FidoError('VARIANT_NOT_ALLOWED', 'This application is not registered for the local variant.');
    }
    return { username, user, variant: 'local', rpId: LOCAL_RP_ID };
  }
  if (domain !== application.domain) {
    throw new FidoError(
      'RPID_NOT_FOUND',
      `The domain after "#" must be this application's registered domain or "${LOCAL_RP_ID}".`,
    );
  }
  if (!application.variants.includes('standard')) {
    throw new FidoError('VARIANT_NOT_ALLOWED', 'This application is not approved for the standard variant.');
  }
  return { username, user, variant: 'standard', rpId: application.domain };
}
