// `simplewebauthn` (docs/migration.md): the passkeys of an application built on SimpleWebAuthn, as JSON Lines
// or as one JSON array (read as a stream either way), each an object of the `Passkey` model in
// SimpleWebAuthn's server documentation: `id` (base64url credential id), `publicKey` (the COSE key bytes the
// model keeps raw; a dump writes them as base64url or base64 text, a list of numbers, Node's
// `{"type":"Buffer","data":[…]}`, a serialised Uint8Array `{"0":…}` or PostgreSQL's `\x…` hex),
// `webauthnUserID` (the base64url user handle; `webAuthnUserID`, as the documentation's registration example
// spells it, is read too), `counter`, `deviceType` (`multiDevice` = backup eligible), `backedUp`, `transports`
// (a list, or the comma-separated text the documentation suggests storing), and the user's name as
// `username` or `user.username`.
import { jsonPathText, readJsonValues } from './json-values.js';
import { readLines } from './lines.js';
import type { SourceItem, SourceReader } from './record.js';
import {
  binaryAsBase64url,
  counter,
  decodeBinary,
  FieldError,
  type Fields,
  firstSignificantByte,
  flag,
  isObject,
  jsonLineValues,
  malformedAt,
  NO_AAGUID,
  optionalText,
  readRecord,
  time,
  transports,
} from './source-fields.js';

export const readSimpleWebAuthn: SourceReader = async function* (source) {
  const { first, input } = await firstSignificantByte(source);
  if (first === 0x5b) {
    for await (const item of readJsonValues(input, (path) => path.length === 1)) {
      const at = jsonPathText(item.path);
      yield item.kind === 'value' ? passkeyItem(at, item.value) : malformedAt(at, item.message);
    }
    return;
  }
  for await (const item of jsonLineValues(readLines(input)))
    yield 'value' in item ? passkeyItem(item.at, item.value) : item;
};

function passkeyItem(at: number | string, value: unknown): SourceItem {
  return readRecord(at, () => {
    if (!isObject(value)) throw new FieldError('a passkey is not a JSON object');
    const user = value.user;
    const username =
      optionalText(value.username, 'username') ??
      (isObject(user) ? optionalText(user.username, 'user.username') : null);
    if (username === null) throw new FieldError('username: missing (neither username nor user.username)');
    const displayName =
      optionalText(value.displayName, 'displayName') ??
      (isObject(user) ? optionalText(user.displayName, 'user.displayName') : null);
    const deviceType = value.deviceType;
    if (deviceType !== undefined && deviceType !== 'singleDevice' && deviceType !== 'multiDevice')
      throw new FieldError('deviceType: not "singleDevice" or "multiDevice"');
    const backedUp = flag(value.backedUp, 'backedUp', false);
    const handle = value.webauthnUserID ?? value.webAuthnUserID;
    return {
      at,
      record: {
        username,
        userHandle: binaryAsBase64url(handle, 'webauthnUserID'),
        displayName,
        credentialId: binaryAsBase64url(value.id, 'id'),
        publicKey: keyBytes(value.publicKey),
        signCount: counter(value.counter, 'counter', 0),
        transports: transports(value.transports, 'transports'),
        backupEligible: deviceType === 'multiDevice' || backedUp,
        backupState: backedUp,
        aaguid: NO_AAGUID,
        nickname: null,
        createdAt: time(value.createdAt ?? value.created_at, 'createdAt'),
        lastUsedAt: time(value.lastUsedAt ?? value.last_used_at, 'lastUsedAt'),
        rpId: null,
        residentKey: null,
        attestation: null,
        status: null,
      },
    };
  });
}

const BYTE = (n: unknown) => Number.isInteger(n) && (n as number) >= 0 && (n as number) <= 255;

/** The COSE key bytes, in any of the forms a dump of a Uint8Array (or a BYTEA column) takes. */
function keyBytes(value: unknown): Buffer {
  if (typeof value === 'string') {
    if (/^\\x([0-9a-fA-F]{2})+$/.test(value)) return Buffer.from(value.slice(2), 'hex');
    const bytes = decodeBinary(value);
    if (bytes !== undefined && bytes.length > 0) return bytes;
  } else if (Array.isArray(value) && value.length > 0 && value.every(BYTE)) return Buffer.from(value as number[]);
  else if (isObject(value)) {
    const data = (value as Fields).data;
    if (value.type === 'Buffer' && Array.isArray(data) && data.length > 0 && data.every(BYTE))
      return Buffer.from(data as number[]);
    const entries = Object.entries(value);
    if (entries.length > 0 && entries.every(([k, v], i) => k === String(i) && BYTE(v)))
      return Buffer.from(entries.map(([, v]) => v as number));
  }
  if (value === undefined || value === null) throw new FieldError('publicKey: missing');
  throw new FieldError('publicKey: not base64url, base64, hex or a list of bytes');
}
