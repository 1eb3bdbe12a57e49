// Browser helper: the service's options JSON → arguments of navigator.credentials.create()/get(), and the
// resulting credential → the JSON the service expects. Uses the browser's own
// PublicKeyCredential.parseCreationOptionsFromJSON / parseRequestOptionsFromJSON / credential.toJSON()
// where they exist, and the same conversions by hand where they do not. A plain ES module, no build step.

const ENVELOPE_FIELDS = ['status', 'errorMessage', 'sessionId'];

/** base64url (no padding) → ArrayBuffer. */
export function base64urlToBuffer(text) {
  if (typeof text !== 'string' || !/^[A-Za-z0-9_-]*$/.test(text)) throw new TypeError('not a base64url string');
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4);
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes.buffer;
}

/** ArrayBuffer or view → base64url without padding. */
export function bufferToBase64url(buffer) {
  const bytes = buffer instanceof ArrayBuffer ? new Uint8Array(buffer) : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Drops the envelope and every null/empty-string member: WebAuthn's dictionaries reject null enums. */
function cleanOptions(json) {
  const copy = {};
  for (const [key, value] of Object.entries(json)) {
    if (ENVELOPE_FIELDS.includes(key) || value === null || value === '') continue;
    copy[key] = value !== null && typeof value === 'object' && !Array.isArray(value) ? cleanOptions(value) : value;
  }
  return copy;
}

const withIds = (list) => (list ?? []).map((descriptor) => ({ ...descriptor, id: base64urlToBuffer(descriptor.id) }));

/** Attestation options response → `{ publicKey }` for navigator.credentials.create(). */
export function creationOptionsFromJSON(json) {
  const options = cleanOptions(json);
  if (typeof PublicKeyCredential !== 'undefined' && typeof PublicKeyCredential.parseCreationOptionsFromJSON === 'function') {
    return { publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) };
  }
  return {
    publicKey: {
      ...options,
      challenge: base64urlToBuffer(options.challenge),
      user: { ...options.user, id: base64urlToBuffer(options.user.id) },
      excludeCredentials: withIds(options.excludeCredentials),
    },
  };
}

/** Assertion options response → `{ publicKey }` for navigator.credentials.get(). */
export function requestOptionsFromJSON(json) {
  const options = cleanOptions(json);
  if (typeof PublicKeyCredential !== 'undefined' && typeof PublicKeyCredential.parseRequestOptionsFromJSON === 'function') {
    return { publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options) };
  }
  return { publicKey: { ...options, challenge: base64urlToBuffer(options.challenge), allowCredentials: withIds(options.allowCredentials) } };
}

/**
 * A PublicKeyCredential → the request body of attestation/result or assertion/result:
 * `{ id, rawId, type, response, extensions }` (the service's field names: client extension
 * results travel as `extensions`).
 */
export function credentialToJSON(credential) {
  const json = typeof credential.toJSON === 'function' ? credential.toJSON() : manualToJSON(credential);
  return {
    id: json.id,
    rawId: json.rawId,
    type: json.type,
    response: json.response,
    extensions: json.clientExtensionResults ?? credential.getClientExtensionResults?.() ?? {},
  };
}

function manualToJSON(credential) {
  const r = credential.response;
  const response = { clientDataJSON: bufferToBase64url(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = bufferToBase64url(r.attestationObject);
    if (typeof r.getTransports === 'function') response.transports = r.getTransports();
    if (typeof r.getAuthenticatorData === 'function') response.authenticatorData = bufferToBase64url(r.getAuthenticatorData());
  } else {
    response.authenticatorData = bufferToBase64url(r.authenticatorData);
    response.signature = bufferToBase64url(r.signature);
    if (r.userHandle) response.userHandle = bufferToBase64url(r.userHandle);
  }
  return { id: credential.id, rawId: bufferToBase64url(credential.rawId), type: credential.type, response, clientExtensionResults: credential.getClientExtensionResults() };
}

/** A browser exception from create()/get() → a sentence a user can act on. */
export function describeWebAuthnError(error, ceremony) {
  const name = error && error.name;
  switch (name) {
    case 'AbortError':
      return 'Cancelled.';
    case 'NotAllowedError':
      return ceremony === 'create'
        ? 'No passkey was created: the request was cancelled, timed out, or no authenticator answered.'
        : 'Not signed in: the request was cancelled, timed out, or this device holds no passkey for this account.';
    case 'InvalidStateError':
      return ceremony === 'create' ? 'This authenticator already holds a passkey for this account.' : 'The authenticator is in a state that cannot answer now.';
    case 'SecurityError':
      return "This page's address may not use the site's passkey domain (RP ID). Check the hostname and that the page is served over HTTPS.";
    case 'NotSupportedError':
      return 'No available authenticator supports what this site asked for (algorithm or options).';
    case 'ConstraintError':
      return 'The authenticator cannot meet the requested user verification or discoverable-credential setting.';
    case 'TypeError':
      return `The options from the server were not usable: ${error.message}`;
    default:
      return `The browser refused: ${name ?? 'Error'}${error && error.message ? ` (${error.message})` : ''}`;
  }
}

/** Whether this page can use passkeys at all, with the reason when not. */
export function webAuthnAvailability() {
  if (!window.isSecureContext) return { ok: false, reason: 'Passkeys need a secure page: open it over HTTPS (not from a file or plain HTTP).' };
  if (typeof PublicKeyCredential === 'undefined' || !navigator.credentials) return { ok: false, reason: 'This browser does not support passkeys (WebAuthn).' };
  return { ok: true };
}
