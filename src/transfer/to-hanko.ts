// `--to hanko` (docs/migration.md): the stored passkeys as Hanko's user import list (one JSON array of users,
// as `hanko user import` reads it, backend/cmd/user/format.go in teamhanko/hanko), written as a stream. Hanko
// groups passkeys under their user, so the first time a user is met its passkeys are read (listByUser) and
// written together; the user is remembered only until the last of its passkeys has gone by in the pages.
// The user handle is kept the two ways Hanko can hold one: 16 bytes are the user's `user_id` (the UUID whose
// bytes Hanko gives authenticators), a handle that is text is `user_handle` (Hanko uses the text's bytes).
// Any other handle (the 32 bytes the service derives) Hanko cannot hold: the user is written without its
// passkeys, which would not sign in there. Hanko's importer takes only UUID v4 AAGUIDs: another is written
// as all zeros.
import type { CredentialRecord } from '../stores/types.js';
import type { RecordWriter, WriterApplication } from './writer.js';

const NO_AAGUID = '00000000-0000-0000-0000-000000000000';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const TEXT_HANDLE = /^[^\u0000-\u001f\u007f-\u009f]{1,255}$/u;

export const writeHanko: RecordWriter = async function* (pages, application, store) {
  /** Users written whose later passkeys are still to come in the pages, with how many. */
  const pending = new Map<string, number>();
  let first = true;
  yield '[';
  for await (const page of pages) {
    const entries: string[] = [];
    for (const record of page) {
      const left = pending.get(record.userHandle);
      if (left !== undefined) {
        if (left <= 1) pending.delete(record.userHandle);
        else pending.set(record.userHandle, left - 1);
        continue;
      }
      const all = await store.listByUser(application.clientId, record.userHandle);
      const passkeys = all.some((c) => c.credentialId === record.credentialId) ? all : [record, ...all];
      if (passkeys.length > 1) pending.set(record.userHandle, passkeys.length - 1);
      entries.push(JSON.stringify(hankoUser(passkeys, application)));
    }
    if (entries.length === 0) continue;
    yield `${first ? '\n' : ',\n'}${entries.join(',\n')}`;
    first = false;
  }
  yield first ? ']\n' : '\n]\n';
};

/** One user of Hanko's list, with its passkeys when Hanko can hold its user handle. */
export function hankoUser(
  passkeys: readonly CredentialRecord[],
  application: WriterApplication,
): Record<string, unknown> {
  const someone = passkeys[0]!;
  const handle = Buffer.from(someone.userHandle, 'base64url');
  const at = someone.username.lastIndexOf('#');
  const name =
    at > 0 && someone.username.slice(at + 1) === application.domain ? someone.username.slice(0, at) : someone.username;
  const text = handle.length === 16 ? null : textHandle(handle);
  const created = Math.min(...passkeys.map((p) => p.createdAt));
  const entry: Record<string, unknown> = {};
  if (handle.length === 16) entry.user_id = uuidText(handle);
  if (EMAIL.test(name)) entry.emails = [{ address: name, is_primary: true, is_verified: false }];
  else {
    entry.emails = null;
    entry.username = name;
  }
  if (handle.length === 16 || text !== null)
    entry.webauthn_credentials = passkeys.map((passkey) => hankoCredential(passkey, text));
  entry.created_at = new Date(created).toISOString();
  entry.updated_at = new Date(created).toISOString();
  return entry;
}

function hankoCredential(passkey: CredentialRecord, userHandle: string | null): Record<string, unknown> {
  const created = new Date(passkey.createdAt).toISOString();
  const used = passkey.lastUsedAt === null ? null : new Date(passkey.lastUsedAt).toISOString();
  return {
    id: passkey.credentialId,
    name: passkey.nickname,
    public_key: Buffer.from(passkey.publicKey).toString('base64url'),
    attestation_type: passkey.attestationFormat === 'imported' ? 'none' : passkey.attestationFormat,
    aaguid: UUID_V4.test(passkey.aaguid) ? passkey.aaguid : NO_AAGUID,
    sign_count: passkey.signCount,
    last_used_at: used,
    created_at: created,
    updated_at: used ?? created,
    transports: [...new Set(passkey.transports)],
    backup_eligible: passkey.backupEligible,
    backup_state: passkey.backupState,
    mfa_only: false,
    user_handle: userHandle,
  };
}

/** The handle as the text whose UTF-8 bytes it is, or null when it is not such a text. */
function textHandle(handle: Buffer): string | null {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(handle);
  } catch {
    return null;
  }
  return TEXT_HANDLE.test(text) ? text : null;
}

function uuidText(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
