// Credentials, pending ceremonies and used-challenge markers. Ids sort by code unit (COLLATE "C"), the
// order every backend lists them in.
import type { PostgresMigration } from './migration.js';

export const migration: PostgresMigration = {
  version: 1,
  name: 'credentials and challenges',
  statements: (schema) => [
    `CREATE TABLE ${schema}.credentials (
       client_id           text     COLLATE "C" NOT NULL,
       credential_id       text     COLLATE "C" NOT NULL,
       user_handle         text     NOT NULL,
       username            text     NOT NULL,
       public_key          bytea    NOT NULL,
       algorithm           integer  NOT NULL,
       sign_count          bigint   NOT NULL CHECK (sign_count >= 0),
       transports          text[]   NOT NULL,
       aaguid              text     NOT NULL,
       attestation_format  text     NOT NULL,
       attestation_type    text     NOT NULL,
       attestation_trusted boolean  NOT NULL,
       backup_eligible     boolean  NOT NULL,
       backup_state        boolean  NOT NULL,
       user_verified       boolean  NOT NULL,
       resident_key        boolean,
       clone_warning       boolean  NOT NULL,
       created_at          bigint   NOT NULL,
       last_used_at        bigint,
       PRIMARY KEY (client_id, credential_id)
     )`,
    `CREATE INDEX credentials_by_user ON ${schema}.credentials (client_id, user_handle, created_at, credential_id)`,
    // A pending ceremony; the whole CeremonyRecord is kept as JSON text (only ever read back whole; text,
    // not jsonb, so that every string JSON can carry, lone surrogates included, comes back unchanged).
    `CREATE TABLE ${schema}.challenges (
       client_id  text   NOT NULL,
       challenge  text   NOT NULL,
       record     text   NOT NULL,
       expires_at bigint NOT NULL,
       PRIMARY KEY (client_id, challenge)
     )`,
    `CREATE INDEX challenges_by_expiry ON ${schema}.challenges (expires_at)`,
    // Written in the same statement that deletes the ceremony, so a replay answers "used" until expiry.
    `CREATE TABLE ${schema}.used_challenges (
       client_id  text   NOT NULL,
       challenge  text   NOT NULL,
       expires_at bigint NOT NULL,
       PRIMARY KEY (client_id, challenge)
     )`,
    `CREATE INDEX used_challenges_by_expiry ON ${schema}.used_challenges (expires_at)`,
  ],
};
