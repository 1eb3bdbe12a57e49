// The answers of the four operations, one schema each, and the failure envelope: the ceremonies' answer
// types (Shape<>) and the OpenAPI document come from here, and the tests check real answers against them.
// Answers are not checked at run time: the service builds them, and the tests keep them true.

import { Type, type Shape, type TProperties } from './typebox.js';
import { MAX_HINTS } from './requests.js';
import {
  AttachmentSchema,
  AttestationConveyanceSchema,
  AttestationTypeSchema,
  aaguid,
  base64url,
  HintSchema,
  UserVerificationSchema,
} from './values.js';
import { AuthenticatorSelectionSchema } from './requests.js';

/** A success answer: the envelope, then the operation's fields, and nothing else. */
export function okEnvelope<P extends TProperties>(properties: P) {
  return Type.Object(
    {
      status: Type.Literal('ok'),
      errorMessage: Type.Literal('', { description: 'Empty on success (the samples show an empty string).' }),
      sessionId: Type.String({
        description: 'Always present; a result call never needs it back (the challenge identifies the ceremony).',
      }),
      ...properties,
    },
    { additionalProperties: false },
  );
}

/** The failure envelope, `errorNames` being the catalogue's (src/errors/catalogue.ts): the document lists every name. */
export function failedEnvelopeSchema(errorNames: readonly string[]) {
  const ErrorName = errorNameSchema(errorNames, 'The error names of the four operations (docs/errors.md).');
  return {
    ErrorName,
    FailedEnvelope: Type.Object(
      {
        status: Type.Literal('failed'),
        errorMessage: Type.Tuple([ErrorName, Type.String({ minLength: 1 })], {
          description: 'First the error name, then a short description for the integrator.',
        }),
        sessionId: Type.String(),
        signals: Type.Optional(UnknownCredentialSignalSchema),
      },
      { additionalProperties: false },
    ),
  };
}

/** One of `names`: the OpenAPI document's list of a catalogue's error names. */
export function errorNameSchema(names: readonly string[], description: string) {
  return Type.Union(
    names.map((name) => Type.Literal(name)),
    { description },
  );
}

// The WebAuthn Signal API's arguments (docs/api.md "Signals"): what the page passes to the browser's
// PublicKeyCredential.signal*() functions so that password managers stay in step with the service.
const RpId = Type.String({ minLength: 1, description: "The application's domain." });
const UserId = base64url({ description: 'The user handle (user.id).' });

export const AllAcceptedCredentialsSchema = Type.Object(
  {
    rpId: RpId,
    userId: UserId,
    allAcceptedCredentialIds: Type.Array(base64url(), {
      description: 'Every credential the user still has, oldest first.',
    }),
  },
  { additionalProperties: false, description: 'The argument of PublicKeyCredential.signalAllAcceptedCredentials().' },
);

export const CurrentUserDetailsSchema = Type.Object(
  {
    rpId: RpId,
    userId: UserId,
    name: Type.String({ minLength: 1, description: 'user.name as the options gave it: the full `<user>#<domain>`.' }),
    displayName: Type.String({
      description: "The display name of the user's newest registration (the user part when none was given).",
    }),
  },
  { additionalProperties: false, description: 'The argument of PublicKeyCredential.signalCurrentUserDetails().' },
);

export const AcceptedSignalsSchema = Type.Object(
  {
    allAcceptedCredentials: AllAcceptedCredentialsSchema,
    currentUserDetails: CurrentUserDetailsSchema,
  },
  {
    additionalProperties: false,
    description: 'Standard variant only: what the page tells the password manager after an ok answer.',
  },
);
export type AcceptedSignals = Shape<typeof AcceptedSignalsSchema>;

export const UnknownCredentialSignalSchema = Type.Object(
  {
    unknownCredential: Type.Object(
      { rpId: RpId, credentialId: base64url() },
      {
        additionalProperties: false,
        description: 'The argument of PublicKeyCredential.signalUnknownCredential().',
      },
    ),
  },
  {
    additionalProperties: false,
    description:
      'Only on a failed sign-in without a user name whose credential the application does not have (standard variant).',
  },
);
export type UnknownCredentialSignal = Shape<typeof UnknownCredentialSignalSchema>;

const HintsAnswer = Type.Array(HintSchema, {
  maxItems: MAX_HINTS,
  description: "The request's hints, else the application's default hints; absent when neither has any.",
});
const Challenge = Type.String({ minLength: 43, pattern: '^[A-Za-z0-9_-]+$' });
const Timeout = Type.Integer({ minimum: 1, description: 'Milliseconds.' });

export const DescriptorSchema = Type.Object(
  {
    type: Type.Literal('public-key'),
    id: base64url(),
    transports: Type.Array(Type.String()),
  },
  { additionalProperties: false },
);
export type Descriptor = Shape<typeof DescriptorSchema>;

/** What an options answer echoes of authenticatorSelection: only the members WebAuthn defines. */
export const AuthenticatorSelectionAnswer = Type.Object(
  { ...AuthenticatorSelectionSchema.properties },
  { additionalProperties: false },
);

const attestationOptionsFields = {
  rp: Type.Object(
    { name: Type.String(), icon: Type.String(), id: Type.String({ minLength: 1 }) },
    { additionalProperties: false },
  ),
  user: Type.Object(
    { name: Type.String(), icon: Type.String(), id: base64url(), displayName: Type.String() },
    { additionalProperties: false },
  ),
  challenge: Challenge,
  pubKeyCredParams: Type.Array(
    Type.Object({ type: Type.Literal('public-key'), alg: Type.Integer() }, { additionalProperties: false }),
    { minItems: 1 },
  ),
  timeout: Timeout,
  excludeCredentials: Type.Array(DescriptorSchema),
  authenticatorSelection: AuthenticatorSelectionAnswer,
  attestation: AttestationConveyanceSchema,
  extensions: Type.Object({ credProps: Type.Literal(true) }),
  hints: Type.Optional(HintsAnswer),
  mediation: Type.Optional(
    Type.Literal('conditional', {
      description: 'Only when the request asked for a conditional create: call create() with mediation "conditional".',
    }),
  ),
};
export const AttestationOptionsFieldsSchema = Type.Object(attestationOptionsFields);
export type AttestationOptionsFields = Shape<typeof AttestationOptionsFieldsSchema>;
export const AttestationOptionsAnswerSchema = okEnvelope(attestationOptionsFields);

const assertionOptionsFields = {
  challenge: Challenge,
  timeout: Timeout,
  rpId: Type.String({ minLength: 1 }),
  allowCredentials: Type.Array(DescriptorSchema),
  userVerification: UserVerificationSchema,
  extensions: Type.Object({}, { description: "The request's extensions, as sent." }),
  hints: Type.Optional(HintsAnswer),
};
export const AssertionOptionsFieldsSchema = Type.Object(assertionOptionsFields);
export type AssertionOptionsFields = Shape<typeof AssertionOptionsFieldsSchema>;
export const AssertionOptionsAnswerSchema = okEnvelope(assertionOptionsFields);

/** Who signed in or registered, and how: every ok answer of both result operations (docs/api.md "Who and how"). */
const identityFields = {
  username: Type.String({
    minLength: 1,
    description: "The credential owner's full `<user>#<domain>` (from the credential, not the request).",
  }),
  userHandle: base64url({ description: 'user.id of the owner.' }),
  credentialId: base64url(),
  userVerified: Type.Boolean({ description: 'UV of this ceremony.' }),
  backupEligible: Type.Boolean({ description: 'BE of this ceremony: the credential may be synced.' }),
  backupState: Type.Boolean({
    description: 'BS of this ceremony: the credential is synced (a synced passkey has BE and BS).',
  }),
  aaguid: aaguid('The authenticator model; all zeros when it gives none.'),
  authenticatorName: Type.Union([Type.String(), Type.Null()], {
    description: "The authenticator's name when known (FIDO metadata, else the bundled AAGUID lists), else null.",
  }),
  authenticatorVerified: Type.Boolean({
    description:
      'true only when a trusted attestation proved the AAGUID the name comes from; otherwise the name is what the authenticator claims.',
  }),
  signCount: Type.Integer({ minimum: 0, description: "The counter of this ceremony's authenticator data." }),
  amr: Type.Array(Type.Union([Type.Literal('hwk'), Type.Literal('swk'), Type.Literal('user'), Type.Literal('mfa')]), {
    minItems: 1,
    uniqueItems: true,
    description:
      'Authentication methods (RFC 8176): `hwk` (device-bound, BE clear) or `swk` (synced, BE set), then `user` when UP, `mfa` when UV.',
  }),
  acr: Type.Union([Type.Literal('phr'), Type.Literal('phrh')], {
    description:
      'OpenID EAP: `phrh` when the credential is device-bound and a trusted attestation proved its AAGUID (at registration), else `phr` (every passkey sign-in is phishing-resistant).',
  }),
  authenticatorAttachment: Type.Optional(
    Type.Union(AttachmentSchema.anyOf, { description: 'Only when the browser sent it (unsigned).' }),
  ),
};
export const IdentityFieldsSchema = Type.Object(identityFields);
export type IdentityFields = Shape<typeof IdentityFieldsSchema>;

/** A registration's answer adds what the registration learnt about the credential. */
const registrationFields = {
  ...identityFields,
  discoverable: Type.Union([Type.Boolean(), Type.Null()], {
    description: 'credProps.rk as the client reported it; null when unknown.',
  }),
  attestationFormat: Type.String({ minLength: 1 }),
  attestationType: AttestationTypeSchema,
  attestationTrusted: Type.Boolean({ description: 'The attestation chained to a trust anchor of the application.' }),
};
export const RegistrationFieldsSchema = Type.Object(registrationFields);
export type RegistrationFields = Shape<typeof RegistrationFieldsSchema>;

/** What only the standard variant's ok results carry (it stores the credentials they are about). */
const standardResultFields = {
  signals: Type.Optional(AcceptedSignalsSchema),
  credentialsToken: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'Lets this user list and delete their own credentials (POST /api/credentials/*) for 10 minutes. Issued by a sign-in, and by a registration only when it gave the user their first credential. Keep it server-side where you can.',
    }),
  ),
};

const attestationResultFields = {
  localhost: Type.Optional(
    base64url({
      description:
        'Local variant only: the sealed key blob to send back in extensions.localhost of every assertion result.',
    }),
  ),
  ...registrationFields,
  ...standardResultFields,
};
export const AttestationResultFieldsSchema = Type.Object(attestationResultFields);
export type AttestationResultFields = Shape<typeof AttestationResultFieldsSchema>;
export const AttestationResultAnswerSchema = okEnvelope(attestationResultFields);

const assertionResultFields = {
  ...identityFields,
  ...standardResultFields,
  authenticatorStatus: Type.Optional(
    Type.String({
      description:
        "Present when FIDO metadata marked this passkey's authenticator model compromised or revoked (e.g. `USER_VERIFICATION_BYPASS`) and the application's compromisedAuthenticators policy is `flag`: the sign-in was accepted; decide whether to ask for another factor or a new passkey.",
    }),
  ),
};
export const AssertionResultFieldsSchema = Type.Object(assertionResultFields);
export type AssertionResultFields = Shape<typeof AssertionResultFieldsSchema>;
export const AssertionResultAnswerSchema = okEnvelope(assertionResultFields);
