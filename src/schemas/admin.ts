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
    AdminError: Type.Object({
      error: AdminErrorName,
      message: Type.String(),
      problems: Type.Optional(Type.Array(Type.String())),
    }, { additionalProperties: false }),
  };
}

export const HealthSchema = Type.Object({ status: Type.Literal('ok') }, { additionalProperties: false });
export const ReadinessSchema = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('not ready'), Type.Literal('draining')]),
  checks: Type.Record(Type.String(), Type.String({ pattern: '^(ok|unavailable: .*)$' })),
}, { additionalProperties: false });

export const ApplicationListSchema = Type.Object({ applications: Type.Array(ApplicationSchema) }, { additionalProperties: false });
export const ApplicationDeletedSchema = Type.Object({
  clientId: Type.String(),
  deletedCredentials: Type.Integer({ minimum: 0 }),
}, { additionalProperties: false });

export const CredentialSchema = Type.Object({
  clientId: Type.String(),
  credentialId: base64url(),
  userHandle: Type.String({ pattern: '^[A-Za-z0-9_-]*$' }),
  username: Type.String(),
  nickname: nullable(Type.String()),
  authenticatorName: nullable(Type.String(), 'From FIDO metadata at registration, else from the bundled AAGUID lists (passkey providers, security keys).'),
  authenticatorIconLight: nullable(Type.String(), 'SVG data URI for light backgrounds (passkey providers only).'),
  authenticatorIconDark: nullable(Type.String(), 'SVG data URI for dark backgrounds (passkey providers only).'),
  authenticatorVerified: Type.Boolean({ description: 'true only when a trusted attestation proved the AAGUID; otherwise the name is what the authenticator claims.' }),
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
}, { additionalProperties: false });
export type CredentialView = Shape<typeof CredentialSchema>;

export const CredentialPageSchema = Type.Object({
  credentials: Type.Array(CredentialSchema),
  next: nullable(Type.String(), 'Pass as `after` for the next page; null on the last page.'),
}, { additionalProperties: false });
export type CredentialPage = Shape<typeof CredentialPageSchema>;

export const NICKNAME_MAX = 64;
export const CredentialRenameSchema = Type.Object({
  nickname: nullable(Type.String({ minLength: 1, maxLength: NICKNAME_MAX, pattern: '^(?=.*\\S)[^\\u0000-\\u001F\\u007F]*$' }),
    'A name of 1 to 64 characters, not blank, without control characters; null removes it.'),
}, { additionalProperties: false });
export const CredentialDeletedSchema = Type.Object({ deleted: Type.Literal(true) }, { additionalProperties: false });
export const UserCredentialsDeletedSchema = Type.Object({
  clientId: Type.String(),
  username: nullable(Type.String(), 'null when named by user handle and no credential was left to tell it.'),
  deleted: Type.Integer({ minimum: 0, description: 'How many credentials were deleted (0 when the user had none).' }),
}, { additionalProperties: false });
export type UserCredentialsDeleted = Shape<typeof UserCredentialsDeletedSchema>;

const orNull = () => nullable(Type.String());
export const AuditEventSchema = Type.Object({
  id: Type.String(),
  time: dateTime(),
  actor: Type.String({ description: '`admin:<token name>`, `cli:<user>`, `client:<Client ID>` or `system`.' }),
  action: Type.String(),
  clientId: orNull(), subject: orNull(), target: orNull(),
  result: Type.Union([Type.Literal('ok'), Type.Literal('failed')]),
  errorName: orNull(), requestId: orNull(), remoteAddress: orNull(),
  details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
}, { additionalProperties: false });
export const AuditPageSchema = Type.Object({ events: Type.Array(AuditEventSchema), next: orNull() }, { additionalProperties: false });

const nullableInteger = () => nullable(Type.Integer());
const MetadataReloadApplication = Type.Object({
  clientId: Type.String(),
  source: Type.Union([Type.Literal('config'), Type.Literal('stored')]),
  file: Type.String(),
  ok: Type.Boolean(),
  serialBefore: nullableInteger(), serial: nullableInteger(), nextUpdate: orNull(), entries: nullableInteger(),
  stale: Type.Boolean(),
  revocationChecked: Type.Boolean({ description: 'The signing chain of the BLOB in use was checked against `attestation.metadataCrls` when it was loaded; false: its revocation was not checked.' }),
  changed: Type.Boolean(),
  error: Type.Optional(Type.String({ description: 'Why the new BLOB was not taken, e.g. `METADATA_BLOB_SIGNATURE_INVALID: …` or `METADATA_BLOB_CRL_INVALID: …`.' })),
}, { additionalProperties: false });
const reportFields = {
  ok: Type.Boolean({ description: 'Every BLOB verified and is in use; false: see the applications whose `ok` is false (their previous BLOB stays in use).' }),
  changed: Type.Boolean({ description: 'Some BLOB serial number changed.' }),
  at: dateTime(),
  applications: Type.Array(MetadataReloadApplication),
};
export const MetadataReloadSchema = Type.Object(reportFields, { additionalProperties: false });
/** A failed reload (422): the admin error envelope around the same report, so both kinds of client read it. */
export const MetadataReloadFailedSchema = Type.Object({
  error: Type.Literal('METADATA_RELOAD_FAILED'),
  message: Type.String(),
  problems: Type.Array(Type.String(), { minItems: 1, description: '`<clientId>: <error>` for each application whose new BLOB was not taken.' }),
  ...reportFields,
  ok: Type.Literal(false),
}, { additionalProperties: false });
