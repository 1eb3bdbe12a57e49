// Pieces both halves of the OpenAPI document use (the four operations in openapi.ts, the admin API in
// openapi-admin.ts): references, the common string formats and an application's fields.

export type JsonSchema = Record<string, unknown>;

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
export const BASE64URL = { type: 'string', pattern: '^[A-Za-z0-9_-]*$' };
export const NONEMPTY_BASE64URL = { type: 'string', minLength: 1, pattern: '^[A-Za-z0-9_-]+$' };
export const USER_VERIFICATION = { type: 'string', enum: ['required', 'preferred', 'discouraged'] };
export const DATE_TIME = { type: 'string', format: 'date-time' };
export const HINTS = {
  type: 'array', items: { type: 'string', enum: ['security-key', 'client-device', 'hybrid'] },
  description: 'WebAuthn L3 hints, in order of preference. A request\'s hints win over the application\'s default hints; an unknown hint is refused with UNKNOWN_HINT.',
};
/** The fields of an application in the config file's shape: what ApplicationInput accepts and Application returns. */
export const APPLICATION_FIELDS: Record<string, JsonSchema> = {
  name: { type: 'string' }, icon: { type: 'string' }, domain: { type: 'string' },
  origins: { type: 'array', items: { type: 'string' } },
  variants: { type: 'array', items: { type: 'string', enum: ['standard', 'local'] } },
  localOrigins: { type: 'array', items: { type: 'string' } },
  timeoutMs: { type: 'integer' }, algorithms: { type: 'array', items: { type: 'integer' } },
  userVerification: { anyOf: [USER_VERIFICATION, { type: 'null' }] },
  counterPolicy: { type: 'string', enum: ['strict', 'warn'] },
  revealUnknownUsers: { type: 'boolean' }, allowCrossOrigin: { type: 'boolean' },
  topOrigins: { type: 'array', items: { type: 'string' }, description: 'Top-level origins that may embed a cross-origin ceremony (clientDataJSON.topOrigin); required with allowCrossOrigin.' },
  attestation: ref('AttestationPolicy'),
  hints: HINTS,
  relatedOrigins: { type: 'array', items: { type: 'string' }, description: 'https origins on other registrable domains that may use the domain as RP ID (WebAuthn L3 related origins).' },
  backupEligibility: { type: 'string', enum: ['any', 'required', 'forbidden'] },
};

/** A JSON request or answer body with `schema`. */
export function jsonContent(schema: JsonSchema) {
  return { 'application/json': { schema } };
}
