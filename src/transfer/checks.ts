// The checks of one record against the application, before anything is read or written (docs/migration.md,
// "What is checked"): the user name's domain, the RP ID the source states, the ids and the handle decode,
// numbers are numbers, the key is a valid key of an algorithm the application accepts. A record that passes
// becomes the credential the import would store: attestation `imported` (nothing re-verified, nothing
// claimed), the AAGUID as the source stated it, the counter carried on.
import type { ApplicationConfig } from '../service-config.js';
import type { CredentialRecord } from '../stores/types.js';
import { decodeBase64url } from '../util/base64url.js';
import { checkPublicKey } from './key-check.js';
import type { RefusalReason, SourceRecord } from './record.js';

/** What the checks read of the application. */
export type ImportApplication = Pick<ApplicationConfig, 'clientId' | 'domain' | 'algorithms'>;

/** The attestation format an imported passkey is stored with (docs/migration.md). */
export const IMPORTED_ATTESTATION_FORMAT = 'imported';

export type Checked =
  | { readonly credential: CredentialRecord }
  | { readonly reason: RefusalReason; readonly message: string };

const MAX_COUNTER = 0xffff_ffff;
const AAGUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A suffix after the last `#` that names a host: letters, digits, hyphens and dots, with a dot or `localhost`. */
const HOST = /^(?=.*\.|localhost$)[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?$/;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const refuse = (reason: RefusalReason, message: string): Checked => ({ reason, message });

/**
 * The application's full user name for a source name: kept when it ends in `#<domain>`, refused when it ends
 * in `#<another host>`, else `<name>#<domain>` (a `#` followed by what is not a host name is part of the name).
 */
export function importedUsername(name: string, domain: string): { username: string } | { otherDomain: string } {
  const at = name.lastIndexOf('#');
  if (at >= 0) {
    const suffix = name.slice(at + 1);
    if (suffix.toLowerCase() === domain.toLowerCase()) return { username: `${name.slice(0, at)}#${domain}` };
    if (HOST.test(suffix)) return { otherDomain: suffix };
  }
  return { username: `${name}#${domain}` };
}

export function checkRecord(source: SourceRecord, app: ImportApplication, now: number): Checked {
  if (source.username.length === 0 || CONTROL.test(source.username))
    return refuse('MALFORMED_RECORD', 'the user name is empty or holds control characters');
  const named = importedUsername(source.username, app.domain);
  if ('otherDomain' in named)
    return refuse(
      'USERNAME_DOMAIN_MISMATCH',
      `the user name ends in #${named.otherDomain}, not #${app.domain} (the application's domain)`,
    );
  if (named.username.startsWith('#')) return refuse('MALFORMED_RECORD', 'the user name has no user part');
  if (source.rpId !== null && source.rpId.toLowerCase() !== app.domain.toLowerCase())
    return refuse('RP_ID_MISMATCH', `the record's RP ID is ${source.rpId}, not ${app.domain}`);
  const handle = decodeBase64url(source.userHandle);
  if (handle === undefined || handle.length === 0 || handle.length > 64)
    return refuse('MALFORMED_RECORD', 'the user handle is not base64url of 1 to 64 bytes');
  const id = decodeBase64url(source.credentialId);
  if (id === undefined || id.length === 0 || id.length > 1023)
    return refuse('MALFORMED_RECORD', 'the credential id is not base64url of 1 to 1023 bytes');
  if (!Number.isInteger(source.signCount) || source.signCount < 0 || source.signCount > MAX_COUNTER)
    return refuse('MALFORMED_RECORD', 'the signature counter is not an integer from 0 to 2^32-1');
  if (!AAGUID.test(source.aaguid)) return refuse('MALFORMED_RECORD', 'the AAGUID is not a lower-case dashed UUID');
  if (!validTime(source.createdAt) || !validTime(source.lastUsedAt))
    return refuse('MALFORMED_RECORD', 'a time is not a date');
  if (source.backupState && !source.backupEligible)
    return refuse('MALFORMED_RECORD', 'backupState is true but backupEligible is false (BS needs BE)');
  if (source.transports.some((t) => typeof t !== 'string' || t.length === 0 || t.length > 32 || CONTROL.test(t)))
    return refuse('MALFORMED_RECORD', 'a transport is not a short name');
  if (source.nickname !== null && (source.nickname.length > 64 || CONTROL.test(source.nickname)))
    return refuse('MALFORMED_RECORD', "the passkey's name is longer than 64 characters or holds control characters");
  const key = checkPublicKey(source.publicKey, app.algorithms);
  if ('reason' in key) return key;
  return {
    credential: {
      clientId: app.clientId,
      // The canonical encodings (a source may pad or differ in case nowhere else).
      credentialId: id.toString('base64url'),
      userHandle: handle.toString('base64url'),
      username: named.username,
      publicKey: source.publicKey,
      algorithm: key.algorithm,
      signCount: source.signCount,
      transports: [...new Set(source.transports)],
      aaguid: source.aaguid,
      attestationFormat: IMPORTED_ATTESTATION_FORMAT,
      attestationType: 'none',
      attestationTrusted: false,
      aaguidProven: false,
      backupEligible: source.backupEligible,
      backupState: source.backupState,
      userVerified: false,
      residentKey: source.residentKey,
      cloneWarning: false,
      createdAt: source.createdAt ?? now,
      lastUsedAt: source.lastUsedAt,
      nickname: blankToNull(source.nickname),
      authenticatorName: null,
      displayName: blankToNull(source.displayName),
      authenticatorStatus: source.status,
      authenticatorStatusAt: source.status === null ? null : now,
    },
  };
}

function validTime(value: number | null): boolean {
  return value === null || (Number.isFinite(value) && value >= 0 && value < 8.64e15);
}

function blankToNull(text: string | null): string | null {
  return text === null || text.trim() === '' ? null : text;
}
