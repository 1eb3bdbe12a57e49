// The WebAuthn Signal API's arguments, as the answers carry them under `signals` (docs/api.md "Signals"):
// exactly what the page passes to PublicKeyCredential.signalAllAcceptedCredentials(),
// signalCurrentUserDetails() and signalUnknownCredential(), so that password managers drop credentials the
// service no longer has and show the names the user registered with. Standard variant only: the local
// variant stores no credential list (docs/decisions.md "Beyond the specification").

import type { AcceptedSignals, UnknownCredentialSignal } from '../schemas/answers.js';
import type { CredentialRecord } from '../stores/types.js';

export type { AcceptedSignals };

/**
 * The signals of an ok answer for the owner of `credentials` (all the credentials of one user of one
 * application, as `listByUser` returns them). `owner` names the user when the list is empty (after the
 * user deleted their last credential).
 */
export function acceptedSignals(
  rpId: string,
  owner: { readonly userHandle: string; readonly username: string },
  credentials: readonly CredentialRecord[],
): AcceptedSignals {
  return {
    allAcceptedCredentials: {
      rpId,
      userId: owner.userHandle,
      allAcceptedCredentialIds: credentials.map((c) => c.credentialId),
    },
    currentUserDetails: {
      rpId,
      userId: owner.userHandle,
      name: owner.username,
      displayName: displayNameOf(owner.username, credentials),
    },
  };
}

/**
 * The display name the newest registration gave the password manager (what the IdP said last); for
 * credentials stored before display names were kept, the user part of the name, which the options answer
 * when the request names none.
 */
function displayNameOf(username: string, credentials: readonly CredentialRecord[]): string {
  let newest: CredentialRecord | undefined;
  for (const credential of credentials) {
    if (credential.displayName != null && (newest === undefined || credential.createdAt >= newest.createdAt))
      newest = credential;
  }
  return newest?.displayName ?? username.slice(0, username.lastIndexOf('#'));
}

/** `signals.unknownCredential` of a failed sign-in without a user name whose credential the application does not have. */
export function unknownCredentialSignal(
  rpId: string,
  credentialId: string,
): { readonly signals: UnknownCredentialSignal } {
  return { signals: { unknownCredential: { rpId, credentialId } } };
}
