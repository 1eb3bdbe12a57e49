// An application's relay secrets as the admin API and CLI show them (docs/admin.md "Relay secrets"): never
// the secret nor its hash, except the secret once, in the answer that created it.
import { Type } from './typebox.js';
import { dateTime, literals, nullable } from './values.js';

/** A relay secret as listed. */
export const RelaySecretSchema = Type.Object(
  {
    id: Type.String({
      description: "`rs_…` for a secret created here; `cfg_…` (derived from it) for one of the config file's.",
    }),
    clientId: Type.String(),
    source: literals(['config', 'admin'] as const, {
      description:
        '`config`: `applications[].relaySecrets` of the config file (change it there); `admin`: created here.',
    }),
    createdAt: nullable(dateTime(), "When the admin API or CLI created it; null for the config file's."),
    lastUsedAt: nullable(
      dateTime(),
      'The last request that carried it, recorded in batches (every few seconds, and at shutdown); null: never.',
    ),
  },
  { additionalProperties: false },
);

export const RelaySecretListSchema = Type.Object(
  { relaySecrets: Type.Array(RelaySecretSchema) },
  { additionalProperties: false },
);

/** The body of a create: nothing to choose (the secret is generated). */
export const RelaySecretInputSchema = Type.Object({}, { additionalProperties: false });

/** The answer to a create: the only time the secret is shown. */
export const RelaySecretCreatedSchema = Type.Object(
  {
    ...RelaySecretSchema.properties,
    secret: Type.String({
      pattern: '^prs_[A-Za-z0-9_-]{43}$',
      description: '`prs_` and 32 random bytes, base64url: shown only in this answer (only its SHA-256 is kept).',
    }),
  },
  { additionalProperties: false },
);

export const RelaySecretRevokedSchema = Type.Object(
  {
    revoked: Type.Literal(true),
    id: Type.String(),
    remaining: Type.Integer({
      minimum: 0,
      description:
        "The application's relay secrets left (the config file's and those created here). 0: it still requires one, so every relay call is refused with 401 until a new one is created.",
    }),
    warning: Type.Optional(
      Type.String({ description: 'Present when `remaining` is 0: what that means for the relay, in words.' }),
    ),
  },
  { additionalProperties: false },
);
