// A credential as a row of SQLite's `credentials` table and back (sqlite.ts, sqlite-webhooks.ts).
import type { CredentialRecord } from '../types.js';
import type { AttestationType } from '../../webauthn/types.js';

interface CredentialRow {
  client_id: string;
  credential_id: string;
  user_handle: string;
  username: string;
  public_key: Buffer;
  algorithm: number;
  sign_count: number;
  transports: string;
  aaguid: string;
  attestation_format: string;
  attestation_type: string;
  attestation_trusted: number;
  backup_eligible: number;
  backup_state: number;
  user_verified: number;
  resident_key: number | null;
  clone_warning: number;
  created_at: number;
  last_used_at: number | null;
  nickname: string | null;
  authenticator_name: string | null;
  display_name: string | null;
  aaguid_proven: number;
  authenticator_status: string | null;
  authenticator_status_at: number | null;
}

export const bit = (value: boolean): number => (value ? 1 : 0);

export function toRow(record: CredentialRecord): CredentialRow {
  return {
    client_id: record.clientId,
    credential_id: record.credentialId,
    user_handle: record.userHandle,
    username: record.username,
    public_key: Buffer.from(record.publicKey),
    algorithm: record.algorithm,
    sign_count: record.signCount,
    transports: JSON.stringify(record.transports),
    aaguid: record.aaguid,
    attestation_format: record.attestationFormat,
    attestation_type: record.attestationType,
    attestation_trusted: bit(record.attestationTrusted),
    backup_eligible: bit(record.backupEligible),
    backup_state: bit(record.backupState),
    user_verified: bit(record.userVerified),
    resident_key: record.residentKey === null ? null : bit(record.residentKey),
    clone_warning: bit(record.cloneWarning),
    created_at: record.createdAt,
    last_used_at: record.lastUsedAt,
    nickname: record.nickname ?? null,
    authenticator_name: record.authenticatorName ?? null,
    display_name: record.displayName ?? null,
    aaguid_proven: bit(record.aaguidProven === true),
    authenticator_status: record.authenticatorStatus ?? null,
    authenticator_status_at: record.authenticatorStatusAt ?? null,
  };
}

/** A row as the reads return it: values in CREDENTIAL_COLUMNS order (raw mode skips one object per row). */
export type CredentialValues = [
  clientId: string,
  credentialId: string,
  userHandle: string,
  username: string,
  publicKey: Buffer,
  algorithm: number,
  signCount: number,
  transports: string,
  aaguid: string,
  attestationFormat: string,
  attestationType: string,
  attestationTrusted: number,
  backupEligible: number,
  backupState: number,
  userVerified: number,
  residentKey: number | null,
  cloneWarning: number,
  createdAt: number,
  lastUsedAt: number | null,
  nickname: string | null,
  authenticatorName: string | null,
  displayName: string | null,
  aaguidProven: number,
  authenticatorStatus: string | null,
  authenticatorStatusAt: number | null,
];

export function fromRow(row: CredentialValues): CredentialRecord {
  const [
    clientId,
    credentialId,
    userHandle,
    username,
    publicKey,
    algorithm,
    signCount,
    transports,
    aaguid,
    attestationFormat,
    attestationType,
    attestationTrusted,
    backupEligible,
    backupState,
    userVerified,
    residentKey,
    cloneWarning,
    createdAt,
    lastUsedAt,
    nickname,
    authenticatorName,
    displayName,
    aaguidProven,
    authenticatorStatus,
    authenticatorStatusAt,
  ] = row;
  const record: { -readonly [K in keyof CredentialRecord]: CredentialRecord[K] } = {
    clientId,
    credentialId,
    userHandle,
    username,
    // A Uint8Array view of the fresh Buffer better-sqlite3 made for this row (no copy; nothing else holds it).
    publicKey: new Uint8Array(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength),
    algorithm,
    signCount,
    transports: JSON.parse(transports) as string[],
    aaguid,
    attestationFormat,
    attestationType: attestationType as AttestationType,
    attestationTrusted: attestationTrusted === 1,
    backupEligible: backupEligible === 1,
    backupState: backupState === 1,
    userVerified: userVerified === 1,
    residentKey: residentKey === null ? null : residentKey === 1,
    cloneWarning: cloneWarning === 1,
    createdAt,
    lastUsedAt,
  };
  // "absent or null = none", the shape every backend returns.
  if (nickname !== null) record.nickname = nickname;
  if (authenticatorName !== null) record.authenticatorName = authenticatorName;
  if (displayName !== null) record.displayName = displayName;
  if (aaguidProven === 1) record.aaguidProven = true;
  if (authenticatorStatus !== null) {
    record.authenticatorStatus = authenticatorStatus;
    record.authenticatorStatusAt = authenticatorStatusAt ?? 0;
  }
  return record;
}
