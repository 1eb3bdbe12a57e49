// A credential as a row of PostgreSQL's `credentials` table (postgres-credentials.ts).
import type { CredentialRecord } from '../types.js';
import type { AttestationType } from '../../webauthn/types.js';
import { toNumber } from './connection.js';

export const COLUMNS = `client_id, credential_id, user_handle, username, public_key, algorithm, sign_count, transports,
  aaguid, attestation_format, attestation_type, attestation_trusted, backup_eligible, backup_state,
  user_verified, resident_key, clone_warning, created_at, last_used_at, nickname, authenticator_name, display_name,
  aaguid_proven, authenticator_status, authenticator_status_at`;

export interface CredentialRow {
  client_id: string;
  credential_id: string;
  user_handle: string;
  username: string;
  public_key: Buffer;
  algorithm: number;
  sign_count: string | number;
  transports: string[];
  aaguid: string;
  attestation_format: string;
  attestation_type: string;
  attestation_trusted: boolean;
  backup_eligible: boolean;
  backup_state: boolean;
  user_verified: boolean;
  resident_key: boolean | null;
  clone_warning: boolean;
  created_at: string | number;
  last_used_at: string | number | null;
  nickname: string | null;
  authenticator_name: string | null;
  display_name: string | null;
  aaguid_proven: boolean;
  authenticator_status: string | null;
  authenticator_status_at: string | number | null;
}

export function fromRow(row: CredentialRow): CredentialRecord {
  const record: CredentialRecord = {
    clientId: row.client_id,
    credentialId: row.credential_id,
    userHandle: row.user_handle,
    username: row.username,
    publicKey: Uint8Array.from(row.public_key),
    algorithm: row.algorithm,
    signCount: toNumber(row.sign_count),
    transports: [...row.transports],
    aaguid: row.aaguid,
    attestationFormat: row.attestation_format,
    attestationType: row.attestation_type as AttestationType,
    attestationTrusted: row.attestation_trusted,
    backupEligible: row.backup_eligible,
    backupState: row.backup_state,
    userVerified: row.user_verified,
    residentKey: row.resident_key,
    cloneWarning: row.clone_warning,
    createdAt: toNumber(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : toNumber(row.last_used_at),
  };
  // "absent or null = none": absent keeps a record created without these fields equal to what comes back.
  return {
    ...record,
    ...(row.nickname === null ? {} : { nickname: row.nickname }),
    ...(row.authenticator_name === null ? {} : { authenticatorName: row.authenticator_name }),
    ...(row.display_name == null ? {} : { displayName: row.display_name }),
    ...(row.aaguid_proven ? { aaguidProven: true } : {}),
    ...(row.authenticator_status == null
      ? {}
      : {
          authenticatorStatus: row.authenticator_status,
          authenticatorStatusAt: toNumber(row.authenticator_status_at ?? 0),
        }),
  };
}

/** The values of one row, in COLUMNS order (the parameters of an insert). */
export function rowValues(record: CredentialRecord): unknown[] {
  return [
    record.clientId,
    record.credentialId,
    record.userHandle,
    record.username,
    Buffer.from(record.publicKey),
    record.algorithm,
    record.signCount,
    [...record.transports],
    record.aaguid,
    record.attestationFormat,
    record.attestationType,
    record.attestationTrusted,
    record.backupEligible,
    record.backupState,
    record.userVerified,
    record.residentKey,
    record.cloneWarning,
    record.createdAt,
    record.lastUsedAt,
    record.nickname ?? null,
    record.authenticatorName ?? null,
    record.displayName ?? null,
    record.aaguidProven === true,
    record.authenticatorStatus ?? null,
    record.authenticatorStatusAt ?? null,
  ];
}
