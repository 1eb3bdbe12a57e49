// The small shapes every other schema file builds on: the enumerated values of WebAuthn and of our config
// (their TypeScript types come from here, so src/service-config.ts re-exports them), base64url strings, AAGUIDs, times.

import { Type, type Static, type TSchema } from './typebox.js';

/** A union of string constants (TypeBox's enum), with a description (or other annotations) when given. */
export const literals = <T extends string>(values: readonly T[], notes?: string | Record<string, unknown>) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    notes === undefined ? {} : typeof notes === 'string' ? { description: notes } : notes,
  );

/** Strict base64url without padding: the alphabet, and no length that leaves 6 spare bits (4n+1). */
export const BASE64URL_PATTERN = '^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2,3})?$';

export const base64url = (options: { readonly maxLength?: number; readonly description?: string } = {}) =>
  Type.String({ minLength: 1, pattern: BASE64URL_PATTERN, detail: 'must be a non-empty base64url string', ...options });

/** WebAuthn L3 PublicKeyCredentialHint: which kind of authenticator the browser should offer first. */
export const HINTS = ['security-key', 'client-device', 'hybrid'] as const;
export const HintSchema = literals(HINTS);
export type Hint = Static<typeof HintSchema>;

export const VARIANTS = ['standard', 'local'] as const;
export const VariantSchema = literals(VARIANTS);
export type Variant = Static<typeof VariantSchema>;

export const UserVerificationSchema = literals(['required', 'preferred', 'discouraged'] as const);
export type UserVerification = Static<typeof UserVerificationSchema>;
export const AttestationConveyanceSchema = literals(['none', 'indirect', 'direct', 'enterprise'] as const);
export type AttestationConveyance = Static<typeof AttestationConveyanceSchema>;
/** Whether a registration's credential may, must or must not be backup eligible (synced). */
export const BackupEligibilitySchema = literals(['any', 'required', 'forbidden'] as const);
export type BackupEligibilityPolicy = Static<typeof BackupEligibilitySchema>;
/** Who may ask for registration options for a name that already has a passkey (`applications[].addPasskey`). */
export const AddPasskeySchema = literals(['any', 'signed-in'] as const);
export type AddPasskeyPolicy = Static<typeof AddPasskeySchema>;
export const CounterPolicySchema = literals(['strict', 'warn'] as const);
/** What the browser reported as `authenticatorAttachment` (unsigned: a hint for display, never for policy). */
export const AttachmentSchema = literals(['platform', 'cross-platform'] as const);
export type Attachment = Static<typeof AttachmentSchema>;
/** How far an attestation was verified (webauthn/types.ts `AttestationType` must stay this union). */
export const AttestationTypeSchema = literals(['none', 'self', 'basic', 'attca', 'anonca', 'uncertain'] as const);

export const AAGUID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
export const aaguid = (description?: string) =>
  Type.String({ pattern: AAGUID_PATTERN, ...(description === undefined ? {} : { description }) });
export const dateTime = (description?: string) =>
  Type.String({ format: 'date-time', ...(description === undefined ? {} : { description }) });
export const nullable = <T extends TSchema>(schema: T, notes?: string | Record<string, unknown>) =>
  Type.Union(
    [schema, Type.Null()],
    notes === undefined ? {} : typeof notes === 'string' ? { description: notes } : notes,
  );

/** COSE algorithm identifiers offered by default, in the order docs/decisions.md fixes. RS1 (-65535) only on request. */
export const DEFAULT_ALGORITHMS: readonly number[] = [-7, -35, -36, -8, -37, -38, -39, -257, -258, -259];
export const DEFAULT_TIMEOUT_MS = 180_000;
