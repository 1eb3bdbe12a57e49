// The four request bodies of the specification, one schema each: the ceremonies' input types
// (Static<>), the runtime validation (compiled once at start by http/validation.ts) and the OpenAPI document
// all come from here. Unknown top-level fields are allowed (browsers and relays add their own, e.g.
// authenticatorAttachment); a field we know is checked for presence, type, length and alphabet.

import { Type, type Static } from './typebox.js';
import {
  AttachmentSchema,
  AttestationConveyanceSchema,
  base64url,
  BASE64URL_PATTERN,
  literals,
  UserVerificationSchema,
} from './values.js';

/** What the configuration bounds (config `limits`). */
export interface RequestLimits {
  readonly usernameLength: number;
  readonly displayNameLength: number;
}

/** A credential id is 1-1023 bytes (WebAuthn L3 §5.1.1): at most 1364 base64url characters. */
export const MAX_CREDENTIAL_ID_CHARS = 1364;
export const MAX_TRANSPORTS = 16;
/** A user handle is at most 64 bytes (WebAuthn L3 §5.4.3): 86 base64url characters. */
const MAX_USER_HANDLE_CHARS = 86;

// C0 controls and DEL never belong in a user name or a display name.
const NO_CONTROLS = '^[^\\u0000-\\u001F\\u007F]*$';

const Extensions = (description?: string) =>
  Type.Unsafe<Readonly<Record<string, unknown>>>(Type.Object({}, description === undefined ? {} : { description }));

export const text = (maxLength: number, description?: string) =>
  Type.String({
    minLength: 1,
    maxLength,
    pattern: NO_CONTROLS,
    patternDetail: 'must not contain control characters',
    ...(description === undefined ? {} : { description }),
  });

/** Generous for `v1.<expiry>.<mac>` (about 55 characters today); the token module decides its validity. */
const MAX_TOKEN_CHARS = 256;

/** The token of a recent ok sign-in (ceremonies/credentials-token.ts): a user's own passkeys, and adding one. */
export const CredentialsToken = Type.String({
  minLength: 1,
  maxLength: MAX_TOKEN_CHARS,
  description:
    'The credentialsToken of an ok sign-in of this user (or of the registration of their first credential), at most 10 minutes old.',
});

export const AuthenticatorSelectionSchema = Type.Object({
  authenticatorAttachment: Type.Optional(AttachmentSchema),
  requireResidentKey: Type.Optional(Type.Boolean()),
  residentKey: Type.Optional(literals(['discouraged', 'preferred', 'required'] as const)),
  userVerification: Type.Optional(UserVerificationSchema),
});
export type AuthenticatorSelection = Static<typeof AuthenticatorSelectionSchema>;

/**
 * WebAuthn L3 `hints`, in order of preference. Any strings here: an unknown one is not a malformed body but
 * UNKNOWN_HINT, which http/validation.ts reports after the schema passed.
 */
export const MAX_HINTS = 8;
const HintsSchema = Type.Array(Type.String(), {
  maxItems: MAX_HINTS,
  detail: `must be an array of at most ${MAX_HINTS} strings`,
  description:
    'Known hints: "security-key", "client-device", "hybrid" (others: UNKNOWN_HINT); a repeated one counts once.',
});

export function attestationOptionsRequestSchema(limits: RequestLimits) {
  return Type.Object(
    {
      username: text(limits.usernameLength, 'Standard: `<user>#<application domain>`; local: `<user>#localhost`.'),
      hints: Type.Optional(HintsSchema),
      displayName: Type.Optional(text(limits.displayNameLength)),
      authenticatorSelection: Type.Optional(AuthenticatorSelectionSchema),
      attestation: Type.Optional(AttestationConveyanceSchema),
      // CredentialMediationRequirement values that make sense for create(); only "conditional" changes anything.
      mediation: Type.Optional(
        literals(
          ['optional', 'required', 'conditional'] as const,
          '`conditional`: an automatic upgrade (conditional create), whose result may lack user presence.',
        ),
      ),
      extensions: Type.Optional(Extensions()),
      // Additive: needed only by an application with `addPasskey: "signed-in"`, for a name that has a passkey.
      credentialsToken: Type.Optional(CredentialsToken),
    },
    { detail: 'must be a JSON object' },
  );
}
export type AttestationOptionsBody = Static<ReturnType<typeof attestationOptionsRequestSchema>>;

export function assertionOptionsRequestSchema(limits: RequestLimits) {
  return Type.Object(
    {
      username: text(limits.usernameLength, 'Standard: `<user>#<application domain>`; local: `<user>#localhost`.'),
      hints: Type.Optional(HintsSchema),
      userVerification: Type.Optional(UserVerificationSchema),
      extensions: Type.Optional(Extensions()),
    },
    { detail: 'must be a JSON object' },
  );
}
export type AssertionOptionsBody = Static<ReturnType<typeof assertionOptionsRequestSchema>>;

/** What both result bodies share, in the order a failure is looked for. */
const credentialFields = {
  id: base64url({ maxLength: MAX_CREDENTIAL_ID_CHARS }),
  rawId: base64url({ maxLength: MAX_CREDENTIAL_ID_CHARS }),
  type: Type.Literal('public-key'),
};

/**
 * Client extension results: the specification's `extensions`; the W3C/conformance spellings
 * `clientExtensionResults` and `getClientExtensionResults` are accepted when `extensions` is absent.
 */
const extensionResultFields = {
  extensions: Type.Optional(
    Extensions(
      'Client extension results. Local variant: `localhost` is the marker (true at registration, the blob at authentication).',
    ),
  ),
  clientExtensionResults: Type.Optional(Extensions()),
  getClientExtensionResults: Type.Optional(Extensions()),
  // Any string (a future value must not fail a sign-in); only the two WebAuthn defines are reported back.
  authenticatorAttachment: Type.Optional(
    Type.Union([Type.String(), Type.Null()], { detail: 'must be a string or null' }),
  ),
};

const TransportsSchema = Type.Array(
  Type.String({
    pattern: '^[A-Za-z0-9_-]{1,32}$',
    detail: 'must be a transport name (1-32 characters of A-Z a-z 0-9 _ -)',
  }),
  { maxItems: MAX_TRANSPORTS, detail: `must be an array of at most ${MAX_TRANSPORTS} transport names` },
);

export const AttestationResultRequestSchema = Type.Object(
  {
    ...credentialFields,
    response: Type.Object({
      clientDataJSON: base64url(),
      attestationObject: base64url(),
      transports: Type.Optional(TransportsSchema),
    }),
    ...extensionResultFields,
  },
  { detail: 'must be a JSON object' },
);
export type AttestationResultBody = Static<typeof AttestationResultRequestSchema>;

export const AssertionResultRequestSchema = Type.Object(
  {
    ...credentialFields,
    response: Type.Object({
      clientDataJSON: base64url(),
      authenticatorData: base64url(),
      signature: base64url(),
      // Empty means "no user handle" (WebAuthn L3 allows it for non-discoverable credentials).
      userHandle: Type.Optional(
        Type.Union([Type.String({ maxLength: MAX_USER_HANDLE_CHARS, pattern: BASE64URL_PATTERN }), Type.Null()], {
          detail: 'must be a base64url string of at most 64 bytes, or null',
          description: 'Required (non-empty) in a sign-in without a user name.',
        }),
      ),
    }),
    ...extensionResultFields,
  },
  { detail: 'must be a JSON object' },
);
export type AssertionResultBody = Static<typeof AssertionResultRequestSchema>;
