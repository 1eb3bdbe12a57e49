// Whether a trusted attestation proved the credential's AAGUID (TrustDecision.aaguidProven), kept so that
// `authenticatorVerified` never calls a self or none attestation's model verified (docs/decisions.md).
// Credentials stored before: proven only when a metadata name was stored for them (which, since names are
// stored only for a proven AAGUID, is a trusted attestation of a type that proves one); else not.
import type { SqliteMigration } from './migration.js';

export const migration: SqliteMigration = {
  version: 5,
  name: 'credential aaguid proven',
  statements: [
    'ALTER TABLE credentials ADD COLUMN aaguid_proven INTEGER NOT NULL DEFAULT 0',
    `UPDATE credentials SET aaguid_proven = 1 WHERE attestation_trusted = 1 AND authenticator_name IS NOT NULL
       AND attestation_type NOT IN ('self', 'none', 'uncertain')`,
  ],
};
