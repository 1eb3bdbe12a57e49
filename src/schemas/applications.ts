// An application as the config file writes it (`applications[]`) and the admin API takes it, and as the
// admin API shows it. config/application.ts takes its known keys from here, the OpenAPI document its
// schemas; the checks that need more than a shape (origins under the domain, files that must exist and
// parse) stay in config/application.ts, which reports every problem at once.

import { Type } from './typebox.js';
import {
  aaguid,
  BackupEligibilitySchema,
  CounterPolicySchema,
  dateTime,
  HINTS,
  HintSchema,
  nullable,
  UserVerificationSchema,
  VariantSchema,
} from './values.js';

const paths = (description: string, maxItems?: number) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), {
    description,
    ...(maxItems === undefined ? {} : { maxItems }),
  });

/** The application's attestation trust policy (docs/attestation.md). */
export const AttestationPolicySchema = Type.Object(
  {
    trustAnchors: Type.Optional(paths("PEM files of the application's own trust anchors.")),
    requireTrusted: Type.Optional(
      Type.Boolean({
        description:
          'Refuse every attestation that does not chain to a trusted root (ATTESTATION_NOT_TRUSTED), none and self included.',
      }),
    ),
    metadata: Type.Optional(
      nullable(
        Type.String({ minLength: 1, maxLength: 4096 }),
        'A FIDO MDS3 BLOB file, verified at start and at every metadata reload; null: no metadata.',
      ),
    ),
    metadataRoots: Type.Optional(
      paths('PEM roots that sign the `metadata` BLOB (empty: the bundled FIDO MDS roots). Needs `metadata`.'),
    ),
    metadataCrls: Type.Optional(
      paths(
        "CRL files (PEM or DER) of the `metadata` BLOB's signing chain: each certificate below the root needs a current CRL of its issuer here and must not be listed on it, or the BLOB is refused. Absent: the chain's revocation is not checked. Needs `metadata`.",
        64,
      ),
    ),
    enforceStatusAtAuthentication: Type.Optional(
      Type.Boolean({
        description: 'Refuse authentication by an authenticator model the metadata now reports compromised.',
      }),
    ),
    aaguidAllow: Type.Optional(
      Type.Array(aaguid(), {
        description:
          'Only these AAGUIDs may register (empty: any); decides only on an AAGUID the attestation proved (else AAGUID_NOT_PROVEN).',
      }),
    ),
    aaguidDeny: Type.Optional(
      Type.Array(aaguid(), {
        description:
          'These AAGUIDs may not register; decides only on an AAGUID the attestation proved (else AAGUID_NOT_PROVEN).',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      "The application's attestation trust policy (docs/attestation.md). Paths are files on the service's host; relative ones resolve against the config file's folder (admin API: the data folder).",
  },
);

/** The policy as the loader resolves it: the first five keys always present, paths absolute. */
const POLICY_ALWAYS = ['trustAnchors', 'requireTrusted', 'metadata', 'aaguidAllow', 'aaguidDeny'] as const;
export const ResolvedAttestationPolicySchema = Type.Object(
  {
    ...Type.Required(Type.Pick(AttestationPolicySchema, POLICY_ALWAYS)).properties,
    ...Type.Omit(AttestationPolicySchema, POLICY_ALWAYS).properties,
  },
  {
    additionalProperties: false,
    description: 'The attestation trust policy, resolved: paths absolute, defaults filled in.',
  },
);

export const MIN_TIMEOUT_MS = 10_000;
export const MAX_TIMEOUT_MS = 3_600_000;
const origins = (description: string, maxItems?: number) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), {
    description,
    ...(maxItems === undefined ? {} : { maxItems }),
  });

/** Every key of an application in the config file, each optional here (the file's required ones: APPLICATION_REQUIRED). */
const applicationFields = {
  clientId: Type.String({
    pattern: '^[\\x21-\\x7e]{1,128}$',
    description: 'Visible ASCII without spaces, at most 128 characters.',
  }),
  name: Type.String({ minLength: 1, maxLength: 256 }),
  icon: Type.String({ maxLength: 2048 }),
  domain: Type.String({
    minLength: 1,
    maxLength: 253,
    description: 'The registered developer domain: the RP ID of the standard variant.',
  }),
  origins: origins(
    'Origins of the standard variant (`https://host[:port]` under the domain), and Android apps as `android:apk-key-hash:<base64url SHA-256>`.',
  ),
  variants: Type.Array(VariantSchema, { minItems: 1 }),
  localOrigins: origins('Origins of the local variant; one without a port allows any port of that scheme and host.'),
  timeoutMs: Type.Integer({
    minimum: MIN_TIMEOUT_MS,
    maximum: MAX_TIMEOUT_MS,
    description: "Ceremony lifetime and the options' `timeout`.",
  }),
  algorithms: Type.Array(Type.Integer(), {
    minItems: 1,
    description: 'COSE algorithms offered in pubKeyCredParams, in order.',
  }),
  userVerification: nullable(UserVerificationSchema, 'Minimum user verification; null: what the request asks.'),
  counterPolicy: Type.Union(CounterPolicySchema.anyOf, {
    description: '`strict`: a counter that does not increase fails; `warn`: accepted, recorded as a clone warning.',
  }),
  revealUnknownUsers: Type.Boolean({
    description: 'false: unknown users get options like known ones (no enumeration); true: CREDENTIAL_ID_NOT_FOUND.',
  }),
  allowCrossOrigin: Type.Boolean({
    description:
      'Accept a ceremony in a cross-origin frame (clientDataJSON.crossOrigin), embedded in one of topOrigins.',
  }),
  topOrigins: origins(
    'Top-level origins that may embed a cross-origin ceremony (clientDataJSON.topOrigin); required with allowCrossOrigin.',
    64,
  ),
  attestation: AttestationPolicySchema,
  hints: Type.Array(HintSchema, {
    maxItems: HINTS.length,
    description:
      'WebAuthn L3 hints the options answer when the request sends none, in order of preference (an unknown hint in a request: UNKNOWN_HINT).',
  }),
  relatedOrigins: origins(
    'https origins on other registrable domains that may use the domain as RP ID (WebAuthn L3 related origins).',
    64,
  ),
  backupEligibility: BackupEligibilitySchema,
};
type Fields = typeof applicationFields;

/** The keys an application entry may hold; any other is a typo the config loader reports. */
export const APPLICATION_KEYS = Object.keys(applicationFields) as (keyof Fields)[];
export const ATTESTATION_KEYS = Object.keys(
  AttestationPolicySchema.properties,
) as (keyof typeof AttestationPolicySchema.properties)[];
/** What an application entry of the config file must hold; the others have defaults (docs/configuration.md). */
export const APPLICATION_REQUIRED = ['clientId', 'name', 'domain'] as const;

/** An application entry of the config file. */
export const ApplicationFileSchema = Type.Object(
  {
    ...Type.Pick(Type.Object(applicationFields), APPLICATION_REQUIRED).properties,
    ...Type.Partial(Type.Omit(Type.Object(applicationFields), APPLICATION_REQUIRED)).properties,
  },
  { additionalProperties: false },
);

/** The admin API's body to create (clientId generated, so absent) or update (any subset) an application. */
export const ApplicationInputSchema = Type.Partial(Type.Object(applicationFields), {
  description:
    "An application in the config file's shape (docs/configuration.md). On create, clientId is generated and must be absent; on update, any subset of the fields.",
});

/** Keys an application shows only when written (added later; an older entry stays exactly as it was). */
const ADDITIVE = ['topOrigins', 'hints', 'relatedOrigins', 'backupEligibility'] as const;

/** A validated application (src/config.ts `ApplicationConfig`): every setting resolved. */
export const ApplicationConfigSchema = Type.Object(
  {
    ...Type.Omit(Type.Object(applicationFields), [...ADDITIVE, 'attestation']).properties,
    attestation: ResolvedAttestationPolicySchema,
    ...Type.Partial(Type.Pick(Type.Object(applicationFields), ADDITIVE)).properties,
  },
  { additionalProperties: false },
);

/** An application as the admin API shows it: its validated settings and its state. */
export const ApplicationSchema = Type.Object(
  {
    ...ApplicationConfigSchema.properties,
    approved: Type.Boolean({ description: 'Standard variant approved for the domain.' }),
    disabled: Type.Boolean(),
    activeVariants: Type.Array(VariantSchema, {
      description: 'The variants the four operations accept now (standard only once approved).',
    }),
    source: Type.Union([Type.Literal('config'), Type.Literal('admin')]),
    createdAt: dateTime(),
    updatedAt: dateTime(),
  },
  { additionalProperties: false },
);
