// The refusal of a registration past the application's maxPasskeysPerUser (docs/decisions.md "A user's
// passkey limit"): said by the attestation options of a user already at it, and by the result whose insert
// the store refused (CredentialStore.createCounted), with the same words.
import { FidoError } from '../errors/catalogue.js';

export function passkeyLimitReached(limit: number): FidoError {
  return new FidoError(
    'PASSKEY_LIMIT_REACHED',
    `This user has ${limit} passkeys, the most this application allows: delete one before adding another.`,
  );
}
