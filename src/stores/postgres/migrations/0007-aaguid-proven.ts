// Whether a trusted attestation proved the credential's AAGUID (TrustDecision.aaguidProven), kept so that
// `authenticatorVerified` never calls a self or none attestation's model verified (docs/decisions.md).
// Credentials stored before: proven only when a metadata name was stored for them (which, since names are
// stored only for a proven AAGUID, is a trusted attestation of a type that proves one); else not.
import type { PostgresMigration } from './migration.js';

export const migration: PostgresMigration = {
  version: 7,
  name: 'credential aaguid proven',
  statements: (schema) => [
    `ALTER TABLE ${schema}.credentials ADD COLUMN aaguid_proven boolean NOT NULL DEFAULT false`,
    `UPDATE ${schema}.credentials SET aaguid_proven = true WHERE attestation_trusted AND authenticator_name IS NOT NULL
       AND attestation_type NOT IN ('self', 'none', 'uncertain')`,
  ],
};
