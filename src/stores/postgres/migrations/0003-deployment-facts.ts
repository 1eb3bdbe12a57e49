// Facts every instance of a deployment must agree on, recorded by the first instance that starts: today
// the fingerprints of the shared secrets (never the secrets), so an instance configured with other
// secrets refuses to start instead of deriving other user handles.
import type { PostgresMigration } from './migration.js';

export const migration: PostgresMigration = {
  version: 3,
  name: 'deployment facts (secret fingerprints)',
  statements: (schema) => [
    `CREATE TABLE ${schema}.deployment_facts (
       name        text        COLLATE "C" PRIMARY KEY,
       value       text        NOT NULL,
       recorded_at timestamptz NOT NULL DEFAULT now()
     )`,
  ],
};
