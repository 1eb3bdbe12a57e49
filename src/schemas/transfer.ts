// Moving passkeys in and out (docs/migration.md): one line of the service's own format, `passkey-server`
// (JSON Lines, one passkey a line, lossless), and the report of an import. The reader and the writer of
// src/transfer/passkey-server.ts read and write exactly this schema, and docs/passkey-server-record.schema.json
// is this schema written out (scripts/gen-transfer-schema.mjs; test/schemas/transfer.test.ts keeps it current).
import { Type, jsonSchema, type Shape } from './typebox.js';
import { aaguid, base64url, dateTime, nullable } from './values.js';

/** Longest text field of a record (a display name, a user name): longer is not a record of ours. */
export const RECORD_TEXT_MAX = 1024;
/** A passkey's name, as the admin API's rename allows (NICKNAME_MAX). */
export const RECORD_NAME_MAX = 64;

const text = (description: string, maxLength = RECORD_TEXT_MAX) =>
  Type.String({ minLength: 1, maxLength, description });

/** What registration proved about the passkey where it was registered (informative: an import claims none of it). */
export const StatedAttestationSchema = Type.Object(
  {
    format: Type.String({ maxLength: 64, description: 'The attestation statement format (`packed`, `none`, …).' }),
    type: Type.String({ maxLength: 64, description: 'How far it was verified (`basic`, `self`, `none`, …).' }),
    trusted: Type.Boolean({ description: 'Whether it chained to a trust anchor.' }),
  },
  { additionalProperties: false },
);

/**
 * One passkey of the `passkey-server` format. An export writes every field; an import needs `username`,
 * `userHandle`, `credentialId`, `publicKey` and `signCount`, and takes the documented value for any other.
 */
export const PasskeyServerRecordSchema = Type.Object(
  {
    username: text('The user name; `<user>#<application domain>` as the service stores it.'),
    userHandle: base64url({ maxLength: 86, description: 'The user handle (`user.id`) the authenticator holds.' }),
    displayName: Type.Optional(nullable(text('The user.displayName the passkey was registered with.'))),
    credentialId: base64url({ maxLength: 1364, description: 'The credential id.' }),
    publicKey: base64url({ maxLength: 16384, description: 'The credential public key: base64url of its COSE_Key.' }),
    signCount: Type.Integer({ minimum: 0, maximum: 0xffff_ffff, description: 'The signature counter stored last.' }),
    transports: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 32 }), {
        maxItems: 8,
        description: 'As the browser reported them at registration (default: none).',
      }),
    ),
    backupEligible: Type.Optional(Type.Boolean({ description: 'BE (default false).' })),
    backupState: Type.Optional(Type.Boolean({ description: 'BS at the last sign-in (default false).' })),
    aaguid: Type.Optional(aaguid('The AAGUID the authenticator stated (default: all zeros).')),
    attestation: Type.Optional(nullable(StatedAttestationSchema)),
    name: Type.Optional(nullable(text('The name the user or an administrator gave the passkey.', RECORD_NAME_MAX))),
    createdAt: Type.Optional(nullable(dateTime('When it was registered (default: the time of the import).'))),
    lastUsedAt: Type.Optional(nullable(dateTime('Its last sign-in; null = never.'))),
    status: Type.Optional(
      nullable(
        Type.String({ minLength: 1, maxLength: 64, description: 'The FIDO metadata status that marked its model.' }),
      ),
    ),
    residentKey: Type.Optional(nullable(Type.Boolean({ description: 'credProps.rk as the client reported it.' }))),
  },
  {
    additionalProperties: false,
    title: 'passkey-server record',
    description: 'One line of the passkey-server format.',
  },
);
export type PasskeyServerRecord = Shape<typeof PasskeyServerRecordSchema>;

/** The report of an import (CLI standard output, admin API answer): src/transfer/record.ts ImportReport. */
export const ImportReportSchema = Type.Object(
  {
    imported: Type.Integer({ minimum: 0 }),
    skipped: Type.Integer({ minimum: 0, description: 'Records identical to a stored passkey.' }),
    refused: Type.Array(
      Type.Object(
        {
          line: Type.Union([Type.Integer({ minimum: 1 }), Type.String()], {
            description: 'The line (1-based) of a line format, or the JSON path of a record in a document.',
          }),
          reason: Type.String({ description: 'The refusal reason (docs/migration.md).' }),
          message: Type.String(),
        },
        { additionalProperties: false },
      ),
    ),
    dryRun: Type.Boolean(),
  },
  { additionalProperties: false },
);

/** The JSON Schema of one line of the `passkey-server` format, as published in docs/. */
export function passkeyServerRecordJsonSchema(): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    ...jsonSchema(PasskeyServerRecordSchema),
  };
}
