// `keycloak` (docs/migration.md): a realm export (`kc.sh export --realm <realm> --file <file>`, or one of the
// users files `--users different_files` writes), one JSON document read as a stream (json-values.ts). Each
// `users[]` credential of type `webauthn` or `webauthn-passwordless` is a passkey: its `credentialData` is a
// JSON text (Keycloak's WebAuthnCredentialData) holding `credentialId` (standard base64, as Keycloak's
// WebAuthnCredentialProvider writes it), `credentialPublicKey` (the COSE key, in base64url as its
// CredentialPublicKeyConverter writes it; base64 is read too), `counter`, `aaguid` and `transports`.
// Keycloak gives authenticators the UTF-8 bytes of the user's id (`users[].id`) as the user handle. The
// realm's `webAuthnPolicyRpId` / `webAuthnPolicyPasswordlessRpId`, when set and written before `users` (as
// Keycloak writes them), are the RP ID of its two credential types.
import { type JsonPath, jsonPathText, readJsonValues } from './json-values.js';
import type { SourceItem, SourceReader } from './record.js';
import {
  aaguid,
  binary,
  binaryAsBase64url,
  counter,
  FieldError,
  type Fields,
  isObject,
  malformedAt,
  nickname,
  optionalText,
  readRecord,
  requiredText,
  time,
  transports,
} from './source-fields.js';

const TYPES = { webauthn: 'webAuthnPolicyRpId', 'webauthn-passwordless': 'webAuthnPolicyPasswordlessRpId' } as const;
const POLICIES = new Set<string>(Object.values(TYPES));

const wanted = (path: JsonPath) =>
  (path.length === 2 && path[0] === 'users' && typeof path[1] === 'number') ||
  (path.length === 1 && POLICIES.has(path[0] as string));

export const readKeycloak: SourceReader = async function* (input) {
  const rpIds = new Map<string, string>();
  for await (const item of readJsonValues(input, wanted)) {
    const place = jsonPathText(item.path);
    if (item.kind !== 'value') {
      yield malformedAt(place, item.message);
      continue;
    }
    if (item.path.length === 1) {
      if (typeof item.value === 'string' && item.value !== '') rpIds.set(item.path[0] as string, item.value);
      continue;
    }
    yield* userRecords(place, item.value, rpIds);
  }
};

function* userRecords(place: string, user: unknown, rpIds: ReadonlyMap<string, string>): Iterable<SourceItem> {
  if (!isObject(user)) {
    yield malformedAt(place, 'a user is not a JSON object');
    return;
  }
  if (user.credentials === undefined || user.credentials === null) return;
  if (!Array.isArray(user.credentials)) {
    yield malformedAt(`${place}.credentials`, 'credentials: not a list');
    return;
  }
  for (const [index, credential] of (user.credentials as unknown[]).entries()) {
    if (!isObject(credential) || !(typeof credential.type === 'string' && credential.type in TYPES)) continue;
    const at = `${place}.credentials[${index}]`;
    yield readRecord(at, () => passkey(at, user, credential, rpIds.get(TYPES[credential.type as keyof typeof TYPES])));
  }
}

function passkey(at: string, user: Fields, credential: Fields, rpId: string | undefined): SourceItem {
  const id = requiredText(user.id, 'users[].id');
  let data: unknown;
  try {
    data = JSON.parse(requiredText(credential.credentialData, 'credentialData'));
  } catch (error) {
    if (error instanceof FieldError) throw error;
    throw new FieldError('credentialData: not a JSON text');
  }
  if (!isObject(data)) throw new FieldError('credentialData: not a JSON object');
  const names = [optionalText(user.firstName, 'firstName'), optionalText(user.lastName, 'lastName')].filter(
    (name) => name !== null,
  );
  return {
    at,
    record: {
      username: requiredText(user.username, 'username'),
      userHandle: Buffer.from(id, 'utf8').toString('base64url'),
      displayName: names.length > 0 ? names.join(' ') : null,
      credentialId: binaryAsBase64url(data.credentialId, 'credentialData.credentialId'),
      publicKey: binary(data.credentialPublicKey, 'credentialData.credentialPublicKey'),
      signCount: counter(data.counter, 'credentialData.counter', 0),
      transports: transports(data.transports, 'credentialData.transports'),
      // Keycloak keeps no backup flags: a synced passkey reports them at its next sign-in.
      backupEligible: false,
      backupState: false,
      aaguid: aaguid(data.aaguid, 'credentialData.aaguid'),
      nickname: nickname(credential.userLabel, 'userLabel'),
      createdAt: time(credential.createdDate, 'createdDate'),
      lastUsedAt: null,
      rpId: rpId ?? null,
      residentKey: null,
      attestation: null,
      status: null,
    },
  };
}
