// An application as the config file writes it (`applications[]`) and the admin API takes it, and as the
// admin API shows it. config/application.ts takes its known keys from here, the OpenAPI document its
// schemas; the checks that need more than a shape (origins under the domain, files that must exist and
// parse) stay in config/application.ts, which reports every problem at once.

import { AttestationPolicySchema, list, ResolvedAttestationPolicySchema } from './attestation-policy.js';
import { Type } from './typebox.js';

export { AttestationPolicySchema, ResolvedAttestationPolicySchema };
import {
  AddPasskeySchema,
  BackupEligibilitySchema,
  DEFAULT_ALGORITHMS,
  DEFAULT_TIMEOUT_MS,
  CounterPolicySchema,
  dateTime,
  HINTS,
  HintSchema,
  nullable,
  UserVerificationSchema,
  VARIANTS,
  VariantSchema,
} from './values.js';
import { CompromisedAuthenticatorsField, WebhooksField } from './webhook-shapes.js';

export const MIN_TIMEOUT_MS = 10_000;
/** One entry of `relaySecrets`: a secret's SHA-256, or the environment variable that holds the secret. */
export const RELAY_SECRET_ENTRY = '^(sha256:[0-9a-f]{64}|env:[A-Za-z_][A-Za-z0-9_]{0,127})$';
/** An application's relay secrets, config file and stored ones together. */
export const MAX_RELAY_SECRETS = 16;
export const MAX_TIMEOUT_MS = 3_600_000;
/** The highest `maxPasskeysPerUser`: every options call by name lists all of a user's passkeys. */
export const MAX_PASSKEYS_PER_USER = 10_000;
const origin = (format: string) => Type.String({ minLength: 1, maxLength: 2048, format });

/** Every key of an application in the config file, each optional here (the file's required ones: APPLICATION_REQUIRED). */
const applicationFields = {
  clientId: Type.String({
    minLength: 1,
    maxLength: 128,
    pattern: '^[\\x21-\\x7e]{1,128}$',
    patternDetail: 'visible ASCII characters without spaces, at most 128',
    description: 'The Client ID (visible ASCII, no spaces, ≤ 128). Unique.',
  }),
  name: Type.String({ minLength: 1, maxLength: 256, description: '`rp.name` of registration options.' }),
  icon: Type.String({
    minLength: 0,
    maxLength: 2048,
    default: '',
    description: '`rp.icon` / `user.icon` of registration options.',
  }),
  domain: Type.String({
    minLength: 1,
    maxLength: 253,
    format: 'rp-domain',
    description:
      'The registered developer domain: the RP ID of the standard variant and the part after `#` in `username`. A lower-case host name, not an IP address, not `localhost`.',
  }),
  origins: list(origin('app-origin'), {
    default: [],
    description:
      "Origins allowed in the standard variant, exactly as browsers send them: `https://host[:port]`, lower-case, no path, no trailing slash, no default port. Each must be on `domain` or a subdomain. Required (non-empty) when `variants` holds `standard`. An Android app is listed as `android:apk-key-hash:<hash>`: the base64url (no padding, 43 characters) SHA-256 of the app's signing certificate, which Android writes as `clientDataJSON.origin`; the app's backend relay sends the same text as the `origin` header.",
  }),
  variants: list(VariantSchema, {
    minItems: 1,
    default: [...VARIANTS],
    description: 'Variants this application may use (`standard` = its domain is approved).',
  }),
  localOrigins: list(origin('origin'), {
    default: ['https://localhost'],
    description:
      'Origins allowed in the local variant (`clientDataJSON.origin`). An entry without a port allows any port. `http:` only for `localhost`.',
  }),
  timeoutMs: Type.Integer({
    minimum: MIN_TIMEOUT_MS,
    maximum: MAX_TIMEOUT_MS,
    default: DEFAULT_TIMEOUT_MS,
    description: 'Ceremony lifetime and the `timeout` of options, in milliseconds.',
  }),
  algorithms: list(Type.Integer({ wordedByLoader: true }), {
    minItems: 1,
    default: [...DEFAULT_ALGORITHMS],
    description:
      '`pubKeyCredParams`, in order. RS1 (`-65535`), ML-DSA (`-48`, `-49`, `-50`, RFC 9964) and the fully-specified ESP256 (`-9`), ESP384 (`-51`), ESP512 (`-52`) and Ed25519 (`-19`) (RFC 9864) only when listed here.',
  }),
  userVerification: nullable(UserVerificationSchema, {
    default: null,
    description: 'Minimum user verification; `required` overrides a weaker request.',
  }),
  counterPolicy: Type.Union(CounterPolicySchema.anyOf, {
    default: 'strict',
    description:
      'A signature counter that does not increase: `strict` fails, `warn` accepts and records a clone warning.',
  }),
  revealUnknownUsers: Type.Boolean({
    default: false,
    description:
      '`false`: assertion options for an unknown user look like those of a known one (no user enumeration). `true`: an explicit error.',
  }),
  allowCrossOrigin: Type.Boolean({
    default: false,
    description:
      'Accept a ceremony in a cross-origin frame (`clientDataJSON.crossOrigin: true`, or a `topOrigin`), embedded in one of `topOrigins`. Needs `topOrigins`.',
  }),
  topOrigins: list(origin('origin'), {
    maxItems: 64,
    defaultText: '`[]`',
    description:
      'The top-level pages that may embed a cross-origin ceremony (WebAuthn L3 §7.1 step 10, §7.2 step 13): `clientDataJSON.topOrigin` must be one of them exactly, or the result fails with `TOP_ORIGIN_NOT_MATCHED`; a cross-origin ceremony without `topOrigin` (older browsers) fails the same way, since it cannot show where it was embedded. Origin form like `origins` (on any domain); at most 64. Required (non-empty) when `allowCrossOrigin` is true, refused when it is not. An application stored before this key existed, with `allowCrossOrigin` true, has none listed: its cross-origin ceremonies fail until it is given `topOrigins` (admin API `PATCH`).',
  }),
  attestation: AttestationPolicySchema,
  hints: list(HintSchema, {
    maxItems: HINTS.length,
    defaultText: '`[]`',
    description:
      'Default WebAuthn hints of both options answers, most preferred first, when a request sends none (`docs/api.md`). E.g. `["security-key"]` for an application whose users carry NFC keys.',
  }),
  relatedOrigins: list(origin('https-origin'), {
    maxItems: 64,
    defaultText: '`[]`',
    description:
      'Pages on **other registrable domains** that may use `domain` as their RP ID (WebAuthn L3 §5.11, related origins): accepted like `origins` (origin header and `clientDataJSON.origin`), with `domain` as RP ID. The browser first fetches `https://<domain>/.well-known/webauthn` and needs these origins listed there: the relay serves that document when given the same list as its `relatedOrigins` option (`docs/relay.md`, "Related origins"). https only, origin form, not on `domain` (those go in `origins`), not repeated from `origins`; at most 64 (browsers read at most 5 registrable domains from the document).',
  }),
  backupEligibility: Type.Union(BackupEligibilitySchema.anyOf, {
    defaultText: '`"any"`',
    description:
      'Synced or device-bound: `required` accepts only backup-eligible credentials (synced passkeys; others fail with `BACKUP_ELIGIBILITY_REQUIRED`), `forbidden` only device-bound ones (security keys, device-bound platform credentials; others fail with `BACKUP_ELIGIBILITY_NOT_ALLOWED`). Applies at registration and at every sign-in (WebAuthn L3 §7.2 step 18): a stored credential whose sign-in reports a BE flag the policy refuses fails with the same error, and its stored flag is left as it was.',
  }),
  addPasskey: Type.Union(AddPasskeySchema.anyOf, {
    defaultText: '`"any"`',
    description:
      "Who may add a passkey to a name that already has one (standard variant). `any` (the specification's API): anyone the relay lets ask for attestation options. `signed-in`: attestation options for such a name need `credentialsToken`, the token of an ok sign-in of that user at most 10 minutes old (or of the registration of their first passkey); without it, or with another user's, an altered or an expired one, they fail with `400 SIGN_IN_REQUIRED`, audited, and no challenge is issued. A name without any passkey registers as before. The local variant keeps no passkeys in the service: its relay decides (`docs/relay.md`).",
  }),
  maxPasskeysPerUser: Type.Integer({
    minimum: 1,
    maximum: MAX_PASSKEYS_PER_USER,
    default: 100,
    description:
      "The most passkeys one user (user name) may have (standard variant). A registration past it fails with `409 PASSKEY_LIMIT_REACHED` and stores nothing, also when several registrations of one user run at once; so does the attestation options call of a user already at the limit, before the authenticator makes a key. An import refuses the records past it (`docs/migration.md`). Lowering it deletes nothing: a user above it keeps their passkeys and registers again once under it. Every options call by name reads and lists all of the user's passkeys, so this bounds what one name costs (`docs/performance.md`). At most 10,000.",
  }),
  // Each entry is worded by the loader (src/config/relay-secret-entries.ts), which never echoes it: a secret
  // written here by mistake must not reach a log.
  relaySecrets: list(Type.String({ pattern: RELAY_SECRET_ENTRY, wordedByLoader: true }), {
    maxItems: MAX_RELAY_SECRETS,
    defaultText: 'none (no secret asked)',
    description:
      'Secrets the application\'s relay must send as `Authorization: Bearer <secret>` on every call of the four operations and of `credentials/*` (`docs/api.md`, "Relay secrets"; missing: `401 RELAY_SECRET_MISSING`, wrong: `401 RELAY_SECRET_INVALID`). Each entry is `sha256:` and the 64 lowercase hex digits of the SHA-256 of the secret\'s UTF-8 bytes, or `env:<NAME>`: the secret is in that environment variable (at least 16 characters), hashed at start; the service never keeps the secret. Several at once allow rotation. At most 16. Without any, the service warns at start and `check-config` reports it. Not in the admin API\'s application bodies: the admin API and CLI create more on their own path (`/admin/applications/{clientId}/relay-secrets`, `docs/admin.md`, "Relay secrets"), for any application, and list and revoke them.',
  }),
  requireRelaySecret: Type.Boolean({
    defaultText: '`true` when `relaySecrets` lists any, else unset (no secret asked)',
    description:
      'Whether every call of the four operations and of `credentials/*` must carry one of the application\'s relay secrets. Set by itself from the first secret on (one in `relaySecrets`, or one the admin API or CLI creates) and never unset by a revocation: an application whose last secret was revoked refuses every call with `401 RELAY_SECRET_MISSING` (no `Authorization`) or `401 RELAY_SECRET_INVALID` until a new secret exists (docs/admin.md, "Relay secrets"). Only an explicit `false` (here or through the admin API) opens it again, and only while it has no secret: `false` beside a non-empty `relaySecrets` is refused.',
  }),
  ...{ webhooks: WebhooksField, compromisedAuthenticators: CompromisedAuthenticatorsField },
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
    // In the order of the fields (the order "unknown key" lists them in), the required ones required.
    ...Type.Partial(Type.Object(applicationFields)).properties,
    ...Type.Pick(Type.Object(applicationFields), APPLICATION_REQUIRED).properties,
  },
  { additionalProperties: false },
);

/** The admin API's body to create (clientId generated, so absent) or update (any subset) an application. */
export const ApplicationInputSchema = Type.Partial(Type.Omit(Type.Object(applicationFields), ['relaySecrets']), {
  description:
    "An application in the config file's shape (docs/configuration.md). On create, clientId is generated and must be absent; on update, any subset of the fields.",
});

/** Keys an application shows only when written (added later; an older entry stays exactly as it was). */
export const ADDITIVE = [
  'topOrigins',
  'hints',
  'relatedOrigins',
  'backupEligibility',
  'relaySecrets',
  'webhooks',
  'compromisedAuthenticators',
  'addPasskey',
  'requireRelaySecret',
] as const;

/** A validated application (src/service-config.ts `ApplicationConfig`): every setting resolved. */
export const ApplicationConfigSchema = Type.Object(
  {
    ...Type.Omit(Type.Object(applicationFields), [...ADDITIVE, 'attestation']).properties,
    attestation: ResolvedAttestationPolicySchema,
    ...Type.Partial(Type.Pick(Type.Object(applicationFields), ADDITIVE)).properties,
  },
  { additionalProperties: false },
);

/** An application as the admin API shows it: its validated settings (never its relay secrets) and its state. */
export const ApplicationSchema = Type.Object(
  {
    ...Type.Omit(ApplicationConfigSchema, ['relaySecrets']).properties,
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
