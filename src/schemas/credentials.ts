// A user's own passkeys (docs/api.md "A user's own passkeys"): the request and answer bodies of
// POST /api/credentials/list, /delete and /rename, which a relay exposes to a signed-in user.

import { Type, type Shape, type Static } from './typebox.js';
import { NICKNAME_MAX } from './admin.js';
import { AcceptedSignalsSchema, okEnvelope } from './answers.js';
import { CredentialsToken, MAX_CREDENTIAL_ID_CHARS, text, type RequestLimits } from './requests.js';
import { aaguid, base64url, dateTime, nullable } from './values.js';

export function credentialsListRequestSchema(limits: RequestLimits) {
  return Type.Object({
    username: text(limits.usernameLength, '`<user>#<application domain>` (standard variant only).'),
    credentialsToken: CredentialsToken,
  });
}
export type CredentialsListBody = Static<ReturnType<typeof credentialsListRequestSchema>>;

export function credentialsDeleteRequestSchema(limits: RequestLimits) {
  return Type.Object({
    username: text(limits.usernameLength, '`<user>#<application domain>` (standard variant only).'),
    credentialId: base64url({ maxLength: MAX_CREDENTIAL_ID_CHARS }),
    credentialsToken: CredentialsToken,
  });
}
export type CredentialsDeleteBody = Static<ReturnType<typeof credentialsDeleteRequestSchema>>;

/** A passkey's name as its owner gives it: at most this many characters after trimming (admin rename's rule). */
export const OWN_NICKNAME_MAX = NICKNAME_MAX;

export function credentialsRenameRequestSchema(limits: RequestLimits) {
  return Type.Object({
    username: text(limits.usernameLength, '`<user>#<application domain>` (standard variant only).'),
    credentialId: base64url({ maxLength: MAX_CREDENTIAL_ID_CHARS }),
    credentialsToken: CredentialsToken,
    nickname: Type.Union([Type.String({ maxLength: 1024 }), Type.Null()], {
      detail: 'must be a string or null',
      description: `The new name: 1 to ${OWN_NICKNAME_MAX} characters once leading and trailing spaces are trimmed, no control characters (else INVALID_NICKNAME); null clears it.`,
    }),
  });
}
export type CredentialsRenameBody = Static<ReturnType<typeof credentialsRenameRequestSchema>>;

/** One passkey as its owner is shown it: what to call it, how it syncs, when it was made and used. */
export const OwnCredentialSchema = Type.Object(
  {
    credentialId: base64url(),
    nickname: nullable(
      Type.String(),
      'The name its owner (POST /api/credentials/rename) or an administrator gave it; null when none.',
    ),
    authenticatorName: nullable(
      Type.String(),
      "FIDO metadata's name, else the bundled AAGUID lists'; null when unknown.",
    ),
    authenticatorVerified: Type.Boolean({
      description: 'true only when a trusted attestation proved the AAGUID the name comes from.',
    }),
    authenticatorIconLight: nullable(Type.String(), 'An SVG data URI for light backgrounds (passkey providers only).'),
    authenticatorIconDark: nullable(Type.String(), 'An SVG data URI for dark backgrounds (passkey providers only).'),
    aaguid: aaguid(),
    backupEligible: Type.Boolean({ description: 'As its last ceremony reported: the passkey may be synced.' }),
    backupState: Type.Boolean({ description: 'As its last ceremony reported: the passkey is synced.' }),
    discoverable: nullable(Type.Boolean(), 'credProps.rk at registration; null when the browser did not say.'),
    transports: Type.Array(Type.String()),
    createdAt: dateTime(),
    lastUsedAt: nullable(dateTime(), 'null until its first sign-in.'),
  },
  { additionalProperties: false },
);
export type OwnCredential = Shape<typeof OwnCredentialSchema>;

const credentialsListFields = {
  username: Type.String({ minLength: 1 }),
  credentials: Type.Array(OwnCredentialSchema, { description: 'Oldest first.' }),
  signals: AcceptedSignalsSchema,
};
export const CredentialsListFieldsSchema = Type.Object(credentialsListFields);
export type CredentialsListFields = Shape<typeof CredentialsListFieldsSchema>;
export const CredentialsListAnswerSchema = okEnvelope(credentialsListFields);

const credentialsDeleteFields = {
  username: Type.String({ minLength: 1 }),
  credentialId: base64url({ description: 'The credential deleted.' }),
  signals: AcceptedSignalsSchema,
};
export const CredentialsDeleteFieldsSchema = Type.Object(credentialsDeleteFields);
export type CredentialsDeleteFields = Shape<typeof CredentialsDeleteFieldsSchema>;
export const CredentialsDeleteAnswerSchema = okEnvelope(credentialsDeleteFields);

const credentialsRenameFields = {
  username: Type.String({ minLength: 1 }),
  credentialId: base64url({ description: 'The credential renamed.' }),
  nickname: nullable(Type.String(), 'Its name now, as stored (trimmed); null when cleared.'),
};
export const CredentialsRenameFieldsSchema = Type.Object(credentialsRenameFields);
export type CredentialsRenameFields = Shape<typeof CredentialsRenameFieldsSchema>;
export const CredentialsRenameAnswerSchema = okEnvelope(credentialsRenameFields);
