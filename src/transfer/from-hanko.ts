// `hanko` (docs/migration.md): Hanko's user import/export list (backend/json_schema/hanko.user_import.json in
// teamhanko/hanko), one JSON array of users read as a stream (json-values.ts). Each user's
// `webauthn_credentials[]` are its passkeys: `id` and `public_key` in base64url (the COSE key, as Hanko
// stores them), `sign_count`, `transports`, `aaguid` (text, or Go's 16 numbers), `backup_eligible`,
// `backup_state`, `name`, `created_at`, `last_used_at`. The user handle is what Hanko gives authenticators:
// the UTF-8 bytes of `user_handle` when set (Hanko uses the text's bytes, not a decoding of it), else the 16
// bytes of the user's `user_id` UUID. The user's name is `username`, else its primary e-mail address.
import { type JsonPath, jsonPathText, readJsonValues } from './json-values.js';
import type { SourceItem, SourceReader } from './record.js';
import {
  aaguid,
  binaryAsBase64url,
  binary,
  counter,
  FieldError,
  type Fields,
  firstSignificantByte,
  flag,
  isObject,
  malformedAt,
  nickname,
  optionalText,
  readRecord,
  time,
  transports,
} from './source-fields.js';

const wanted = (path: JsonPath) => path.length === 1 && typeof path[0] === 'number';
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export const readHanko: SourceReader = async function* (source) {
  const { first, input } = await firstSignificantByte(source);
  if (first !== undefined && first !== 0x5b) {
    yield malformedAt('$', 'the document is not a JSON array of users');
    return;
  }
  for await (const item of readJsonValues(input, wanted)) {
    const place = jsonPathText(item.path);
    yield* item.kind === 'value' ? userRecords(place, item.value) : [malformedAt(place, item.message)];
  }
};

function* userRecords(place: string, user: unknown): Iterable<SourceItem> {
  if (!isObject(user)) {
    yield malformedAt(place, 'a user is not a JSON object');
    return;
  }
  const credentials = user.webauthn_credentials;
  if (credentials === undefined || credentials === null) return;
  if (!Array.isArray(credentials)) {
    yield malformedAt(`${place}.webauthn_credentials`, 'webauthn_credentials: not a list');
    return;
  }
  for (const [index, credential] of (credentials as unknown[]).entries()) {
    const at = `${place}.webauthn_credentials[${index}]`;
    yield readRecord(at, () => passkey(at, user, credential));
  }
}

/** The primary e-mail address of `emails`, or null. */
function primaryEmail(emails: unknown): string | null {
  if (emails === undefined || emails === null) return null;
  if (!Array.isArray(emails)) throw new FieldError('emails: not a list');
  const primary = (emails as unknown[]).find((email) => isObject(email) && email.is_primary === true) as
    | Fields
    | undefined;
  return primary === undefined ? null : optionalText(primary.address, 'emails[].address');
}

function userHandle(user: Fields, credential: Fields): string {
  const handle = optionalText(credential.user_handle, 'user_handle');
  if (handle !== null) return Buffer.from(handle, 'utf8').toString('base64url');
  const id = optionalText(user.user_id, 'user_id');
  if (id === null)
    throw new FieldError('user_id: missing, and no user_handle: the handle the authenticator holds is unknown');
  if (!UUID.test(id)) throw new FieldError('user_id: not a UUID');
  return Buffer.from(id.replace(/-/g, ''), 'hex').toString('base64url');
}

function passkey(at: string, user: Fields, credential: unknown): SourceItem {
  if (!isObject(credential)) throw new FieldError('a WebAuthn credential is not a JSON object');
  const email = primaryEmail(user.emails);
  const username = optionalText(user.username, 'username') ?? email;
  if (username === null) throw new FieldError('username: missing, and no primary e-mail address');
  return {
    at,
    record: {
      username,
      userHandle: userHandle(user, credential),
      // Hanko registers passkeys with the primary e-mail address as user.displayName.
      displayName: email,
      credentialId: binaryAsBase64url(credential.id, 'id'),
      publicKey: binary(credential.public_key, 'public_key'),
      signCount: counter(credential.sign_count, 'sign_count', 0),
      transports: transports(credential.transports, 'transports'),
      backupEligible: flag(credential.backup_eligible, 'backup_eligible', false),
      backupState: flag(credential.backup_state, 'backup_state', false),
      aaguid: aaguid(credential.aaguid, 'aaguid'),
      nickname: nickname(credential.name, 'name'),
      createdAt: time(credential.created_at, 'created_at'),
      lastUsedAt: time(credential.last_used_at, 'last_used_at'),
      rpId: null,
      residentKey: null,
      attestation: null,
      status: null,
    },
  };
}
