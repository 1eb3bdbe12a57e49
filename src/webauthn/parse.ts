// From the credential JSON the browser sent (and the client data the ceremony already parsed) to typed
// values. Verification (registration.ts, authentication.ts) then reads only these, never byte offsets.

import { FidoError } from '../errors/catalogue.js';
import { decodeBase64url } from '../util/base64url.js';
import { checkCredentialIdLength, parseAuthenticatorData } from './authenticator-data.js';
import { parseAttestationObject } from './attestation-object.js';
import type {
  AuthenticationCredentialJSON,
  CollectedClientData,
  ParsedAuthentication,
  ParsedRegistration,
  RegistrationCredentialJSON,
} from './types.js';

function bytesField(value: unknown, name: string): Buffer {
  const bytes = typeof value === 'string' ? decodeBase64url(value) : undefined;
  if (!bytes) throw new FidoError('INVALID_REQUEST_BODY', `${name} must be base64url`);
  if (bytes.length === 0) throw new FidoError('INVALID_REQUEST_BODY', `${name} must not be empty`);
  return bytes;
}

/** `id` and `rawId` must be the same bytes (both base64url in the JSON form), 1 to 1023 of them. */
function credentialIdOf(json: { readonly id: string; readonly rawId: string }): Buffer {
  const id = bytesField(json.id, 'id');
  const rawId = bytesField(json.rawId, 'rawId');
  if (!id.equals(rawId)) throw new FidoError('CREDENTIAL_ID_NOT_MATCHED', 'id and rawId differ');
  checkCredentialIdLength(id.length);
  return id;
}

export function parseRegistration(
  json: RegistrationCredentialJSON,
  clientData: CollectedClientData,
): ParsedRegistration {
  const credentialId = credentialIdOf(json);
  const attestationObject = parseAttestationObject(json.response.attestationObject);
  const attested = attestationObject.authData.attestedCredentialData;
  if (!attested)
    throw new FidoError(
      'CREDENTIAL_NOT_INCLUDED',
      'authenticator data carries no attested credential data (AT flag clear)',
    );
  if (!attested.credentialId.equals(credentialId)) {
    throw new FidoError('CREDENTIAL_ID_NOT_MATCHED', 'the credential id in authenticator data differs from id/rawId');
  }
  return {
    credentialId,
    clientData,
    attestationObject,
    transports: [...(json.response.transports ?? [])],
    extensions: json.extensions ?? {},
  };
}

export function parseAuthentication(
  json: AuthenticationCredentialJSON,
  clientData: CollectedClientData,
): ParsedAuthentication {
  const credentialId = credentialIdOf(json);
  const authDataBytes =
    typeof json.response.authenticatorData === 'string' ? decodeBase64url(json.response.authenticatorData) : undefined;
  if (!authDataBytes) throw new FidoError('INVALID_AUTHENTICATOR_DATA', 'authenticatorData is not base64url');
  const authenticatorData = parseAuthenticatorData(authDataBytes);
  const signature = bytesField(json.response.signature, 'signature');
  const handle = json.response.userHandle;
  let userHandle: Buffer | null = null;
  if (handle !== undefined && handle !== null && handle !== '') {
    userHandle = bytesField(handle, 'userHandle');
  }
  return { credentialId, clientData, authenticatorData, signature, userHandle, extensions: json.extensions ?? {} };
}
