// The admin listener's request and answer bodies: health, readiness, applications (schemas/applications.ts),
// credentials, the audit log, the metadata reload and the admin error. The admin views' types and the
// OpenAPI document come from here; the tests check the listener's real answers against them.

import { Type, type Shape } from './typebox.js';
import { errorNameSchema } from './answers.js';
import { ApplicationSchema } from './applications.js';
import { aaguid, AttestationTypeSchema, base64url, dateTime, nullable } from './values.js';

export function adminErrorSchemas(errorNames: readonly string[]) {
  const AdminErrorName = errorNameSchema(errorNames, 'The error names of the admin API (docs/admin.md).');
  return {
    AdminErrorName,
    AdminError: Type.Object(
      {
        error: AdminErrorName,
        message: Type.String(),
        problems: Type.Optional(Type.Array(Type.String())),
      },
      { additionalProperties: false },
    ),
  };
}

export const HealthSchema = Type.Object({ status: Type.Literal('ok') }, { additionalProperties: false });
export const ReadinessSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('ready'), Type.Literal('not ready'), Type.Literal('draining')]),
    checks: Type.Record(Type.String(), Type.String({ pattern: '^(ok|unavailable: .*)$' })),
  },
  { additionalProperties: false },
);

export const ApplicationListSchema = Type.Object(
  { applications: Type.Array(ApplicationSchema) },
  { additionalProperties: false },
);
export const ApplicationDeletedSchema = Type.Object(
  {
    clientId: Type.String(),
    deletedCredentials: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);

export const CredentialSchema = Type.Object(
  {
    clientId: Type.String(),
    credentialId: base64url(),
    userHandle: Type.String({ pattern: '^[A-Za-z0-9_-]*$' }),
    username: Type.String(),
    nickname: nullable(Type.String()),
    authenticatorName: nullable(
      Type.String(),
      'From FIDO metadata at registration, else from the bundled AAGUID lists (passkey providers, security keys).',
    ),
    authenticatorIconLight: nullable(Type.String(), 'SVG data URI for light backgrounds (passkey providers only).'),
    authenticatorIconDark: nullable(Type.String(), 'SVG data URI for dark backgrounds (passkey providers only).'),
    authenticatorVerified: Type.Boolean({
      description:
        'true only when a trusted attestation proved the AAGUID; otherwise the name is what the authenticator claims.',
    }),
    aaguid: aaguid(),
    algorithm: Type.Integer(),
    transports: Type.Array(Type.String()),
    backupEligible: Type.Boolean(),
    backupState: Type.Boolean(),
    userVerified: Type.Boolean(),
    residentKey: nullable(Type.Boolean()),
    attestationFormat: Type.String(),
    attestationType: AttestationTypeSchema,
    attestationTrusted: Type.Boolean(),
    signCount: Type.Integer({ minimum: 0 }),
    cloneWarning: Type.Boolean(),
    createdAt: dateTime(),
    lastUsedAt: nullable(dateTime()),
    authenticatorStatus: nullable(
      Type.String(),
      'The FIDO metadata status that marked its authenticator model compromised or revoked (e.g. `REVOKED`); null: not marked.',
    ),
    authenticatorStatusAt: nullable(dateTime(), 'When it was marked; null: not marked.'),
  },
  { additionalProperties: false },
);
export type CredentialView = Shape<typeof CredentialSchema>;

export const CredentialPageSchema = Type.Object(
  {
    credentials: Type.Array(CredentialSchema),
    next: nullable(Type.String(), 'Pass as `after` for the next page; null on the last page.'),
  },
  { additionalProperties: false },
);
export type CredentialPage = Shape<typeof CredentialPageSchema>;

export const NICKNAME_MAX = 64;
export const CredentialRenameSchema = Type.Object(
  {
    nickname: nullable(
      Type.String({
        minLength: 1,
        maxLength: NICKNAME_MAX,
        pattern: '^(?=.*\\S)[^\\u0000-\\u001F\\u007F]*$',
        patternDetail: 'not blank, without control characters',
      }),
      'A name of 1 to 64 characters, not blank, without control characters; null removes it.',
    ),
  },
  { additionalProperties: false },
);
export const CredentialDeletedSchema = Type.Object({ deleted: Type.Literal(true) }, { additionalProperties: false });
export const UserCredentialsDeletedSchema = Type.Object(
  {
    clientId: Type.String(),
    username: nullable(Type.String(), 'null when named by user handle and no credential was left to tell it.'),
    deleted: Type.Integer({ minimum: 0, description: 'How many credentials were deleted (0 when the user had none).' }),
  },
  { additionalProperties: false },
);
export type UserCredentialsDeleted = Shape<typeof UserCredentialsDeletedSchema>;
export const PostQuantumUsageSchema = Type.Object(
  {
    users: Type.Integer({ minimum: 0, description: 'Users with at least one ML-DSA (COSE -48, -49, -50) credential.' }),
    credentials: Type.Integer({ minimum: 0, description: 'How many such credentials the application holds.' }),
  },
  { additionalProperties: false },
);

const orNull = (description?: string) => nullable(Type.String(), description);
/** Identifiers and small facts; nothing secret. */
export const AuditDetailsSchema = Type.Record(
  Type.String(),
  Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null(), Type.Array(Type.String())]),
);
export const AuditResultSchema = Type.Union([Type.Literal('ok'), Type.Literal('failed')]);
/** One event of the audit log: who did what, when, with what result; never a key, challenge, token or body. */
export const AuditEventSchema = Type.Object(
  {
    id: Type.String({
      description: 'Unique and increasing in time within one process: `<ms, base36, zero-padded>-<random>`.',
    }),
    time: dateTime(),
    actor: Type.String({
      description: '`admin:<token name>`, `cli:<user>`, `client:<Client ID>` (a ceremony) or `system`.',
    }),
    action: Type.String({
      description:
        'e.g. `application.create`, `credential.delete`, `ceremony.registration`, `ceremony.authentication.options`.',
    }),
    clientId: orNull('The application concerned, if any.'),
    subject: orNull('The user concerned (`username`), if known.'),
    target: orNull('The object concerned (credential id, admin token id), if any.'),
    result: AuditResultSchema,
    errorName: orNull('The error name of a failure (catalogue or admin error name); null on success.'),
    requestId: orNull(),
    remoteAddress: orNull(),
    details: Type.Optional(AuditDetailsSchema),
  },
  { additionalProperties: false },
);
export type AuditEvent = Shape<typeof AuditEventSchema>;
export const AuditPageSchema = Type.Object(
  { events: Type.Array(AuditEventSchema), next: orNull() },
  { additionalProperties: false },
);

const ceremonyCounts = (what: string) =>
  Type.Object(
    {
      started: Type.Integer({ minimum: 0, description: `${what} options answered ok (a challenge issued)` }),
      results: Type.Integer({ minimum: 0, description: `${what} result calls` }),
      failed: Type.Integer({ minimum: 0, description: `${what} result calls that failed` }),
    },
    { additionalProperties: false },
  );
export const OverviewApplicationSchema = Type.Object(
  {
    clientId: Type.String(),
    registrations: ceremonyCounts('Registration'),
    authentications: ceremonyCounts('Authentication'),
    errors: Type.Array(
      Type.Object({ error: Type.String(), count: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
      { description: 'Failed result calls by error name, most frequent first' },
    ),
  },
  { additionalProperties: false },
);
export type OverviewApplication = Shape<typeof OverviewApplicationSchema>;
export const OverviewSchema = Type.Object(
  {
    windowSeconds: Type.Integer({ minimum: 1 }),
    since: dateTime(),
    until: dateTime(),
    applications: Type.Array(OverviewApplicationSchema),
  },
  {
    additionalProperties: false,
    description:
      "Ceremonies per application over the last hour, as this instance answered them (the console's overview)",
  },
);
export type Overview = Shape<typeof OverviewSchema>;

const nullableInteger = (description?: string) => nullable(Type.Integer(), description);
/** What a reload did for one application whose policy names a metadata BLOB. */
const MetadataReloadApplication = Type.Object(
  {
    clientId: Type.String(),
    source: Type.Union([Type.Literal('config'), Type.Literal('stored')], {
      description: '`config`: from the config file; `stored`: created or changed through the admin API or CLI.',
    }),
    file: Type.String(),
    ok: Type.Boolean({
      description: 'Whether the BLOB now installed was taken (false: the previous one stays in use, see `error`).',
    }),
    serialBefore: nullableInteger('Serial number (`no`) of the BLOB in use before the reload, or null if unknown.'),
    serial: nullableInteger('Of the BLOB in use now (the new one, or the previous one when `ok` is false).'),
    nextUpdate: orNull(),
    entries: nullableInteger(),
    stale: Type.Boolean({
      description: 'The BLOB in use was past its nextUpdate when it was loaded (install a newer one).',
    }),
    revocationChecked: Type.Boolean({
      description:
        'The signing chain of the BLOB in use was checked against `attestation.metadataCrls` when it was loaded; false: its revocation was not checked.',
    }),
    changed: Type.Boolean({ description: 'Whether the serial number changed.' }),
    error: Type.Optional(
      Type.String({
        description:
          'Only when `ok` is false: why the new BLOB was not taken, e.g. `METADATA_BLOB_SIGNATURE_INVALID: …` or `METADATA_BLOB_CRL_INVALID: …`.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ApplicationMetadataReload = Shape<typeof MetadataReloadApplication>;
const reportFields = {
  ok: Type.Boolean({
    description:
      'Every BLOB verified and is in use (vacuously true when no application names one); false: see the applications whose `ok` is false (their previous BLOB stays in use).',
  }),
  changed: Type.Boolean({ description: 'Some BLOB serial number changed.' }),
  at: dateTime('The time at which the BLOBs were verified.'),
  applications: Type.Array(MetadataReloadApplication),
};
export const MetadataReloadSchema = Type.Object(reportFields, { additionalProperties: false });
export type MetadataReloadReport = Shape<typeof MetadataReloadSchema>;
/** A failed reload (422): the admin error envelope around the same report, so both kinds of client read it. */
export const MetadataReloadFailedSchema = Type.Object(
  {
    error: Type.Literal('METADATA_RELOAD_FAILED'),
    message: Type.String(),
    problems: Type.Array(Type.String(), {
      minItems: 1,
      description: '`<clientId>: <error>` for each application whose new BLOB was not taken.',
    }),
    ...reportFields,
    ok: Type.Literal(false),
  },
  { additionalProperties: false },
);
