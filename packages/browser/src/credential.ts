// A PublicKeyCredential from create()/get() → the request body of attestation/result or assertion/result.
import { bufferToBase64url } from './base64url.js';

/** The result request body: the service's field names (client extension results travel as `extensions`). */
export interface CredentialJSON {
  readonly id: string;
  readonly rawId: string;
  readonly type: string;
  readonly response: Readonly<Record<string, unknown>>;
  readonly extensions: Readonly<Record<string, unknown>>;
}

/** The members of a credential this module reads: a real PublicKeyCredential has them all. */
export interface CredentialLike {
  readonly id: string;
  readonly rawId: ArrayBuffer;
  readonly type: string;
  readonly response: AuthenticatorResponse;
  getClientExtensionResults(): unknown;
  toJSON?: () => unknown;
}

interface ResponseLike {
  readonly clientDataJSON: ArrayBuffer;
  readonly attestationObject?: ArrayBuffer;
  getTransports?: () => string[];
  getAuthenticatorData?: () => ArrayBuffer;
  readonly authenticatorData?: ArrayBuffer;
  readonly signature?: ArrayBuffer;
  readonly userHandle?: ArrayBuffer | null;
}

interface BrowserJSON {
  readonly id: string;
  readonly rawId: string;
  readonly type: string;
  readonly response: Record<string, unknown>;
  readonly clientExtensionResults?: Record<string, unknown>;
}

/** `{ id, rawId, type, response, extensions }`, using `credential.toJSON()` where the browser has it. */
export function credentialToJSON(credential: CredentialLike): CredentialJSON {
  const json =
    typeof credential.toJSON === 'function' ? (credential.toJSON() as BrowserJSON) : manualToJSON(credential);
  return {
    id: json.id,
    rawId: json.rawId,
    type: json.type,
    response: json.response,
    extensions:
      json.clientExtensionResults ??
      (credential.getClientExtensionResults() as Record<string, unknown> | undefined) ??
      {},
  };
}

function manualToJSON(credential: CredentialLike): BrowserJSON {
  const r = credential.response as ResponseLike;
  const response: Record<string, unknown> = { clientDataJSON: bufferToBase64url(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = bufferToBase64url(r.attestationObject);
    if (typeof r.getTransports === 'function') response.transports = r.getTransports();
    if (typeof r.getAuthenticatorData === 'function')
      response.authenticatorData = bufferToBase64url(r.getAuthenticatorData());
  } else {
    if (r.authenticatorData) response.authenticatorData = bufferToBase64url(r.authenticatorData);
    if (r.signature) response.signature = bufferToBase64url(r.signature);
    if (r.userHandle) response.userHandle = bufferToBase64url(r.userHandle);
  }
  return {
    id: credential.id,
    rawId: bufferToBase64url(credential.rawId),
    type: credential.type,
    response,
    clientExtensionResults: credential.getClientExtensionResults() as Record<string, unknown>,
  };
}
