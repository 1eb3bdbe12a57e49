// Hand-written request schemas (no dependency): every field's presence, type, length and alphabet, with a
// detail that names the field, e.g. "response.clientDataJSON must be a non-empty base64url string".
// Unknown top-level fields are ignored (browsers and relays add their own, e.g. authenticatorAttachment).

import { HINTS, type Hint } from '../config.js';
import { FidoError } from '../errors.js';
import { isBase64url } from '../util/base64url.js';
import type {
  AssertionOptionsRequest,
  AssertionResultRequest,
  AttestationOptionsRequest,
  AttestationResultRequest,
  AuthenticatorSelection,
  Extensions,
} from '../ceremonies/requests.js';
import type { Attachment } from '../ceremonies/outcome.js';

export interface SchemaLimits {
  readonly usernameLength: number;
  readonly displayNameLength: number;
}

type Obj = Readonly<Record<string, unknown>>;

/** A credential id is 1-1023 bytes (WebAuthn L3 §5.1.1): at most 1364 base64url characters. */
const MAX_CREDENTIAL_ID_CHARS = 1364;
const MAX_TRANSPORTS = 16;
const TRANSPORT = /^[A-Za-z0-9_-]{1,32}$/;
// C0 controls and DEL never belong in a user name or a display name.
const CONTROL = /[\u0000-\u001F\u007F]/;
// With the `u` flag a surrogate in a class matches only when it is not half of a pair: a lone surrogate.
// UTF-8 turns each into U+FFFD, so names that differ only there would become one user once stored.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

const USER_VERIFICATION = ['required', 'preferred', 'discouraged'] as const;
const ATTESTATION = ['none', 'indirect', 'direct', 'enterprise'] as const;
const ATTACHMENT = ['platform', 'cross-platform'] as const;
const RESIDENT_KEY = ['discouraged', 'preferred', 'required'] as const;
// CredentialMediationRequirement values that make sense for create(); only "conditional" changes anything.
const CREATE_MEDIATION = ['optional', 'required', 'conditional'] as const;

function invalid(detail: string): FidoError {
  return new FidoError('INVALID_REQUEST_BODY', detail);
}

export function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function body(value: unknown): Obj {
  if (!isObject(value)) throw invalid('The request body must be a JSON object.');
  return value;
}

function has(obj: Obj, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key) && obj[key] !== undefined;
}

function text(obj: Obj, key: string, path: string, max: number): string {
  const value = obj[key];
  if (typeof value !== 'string' || value.length === 0) throw invalid(`${path} must be a non-empty string`);
  if (value.length > max) throw invalid(`${path} must be at most ${max} characters`);
  if (CONTROL.test(value)) throw invalid(`${path} must not contain control characters`);
  return value;
}

/** A name the service keys or shows: well-formed Unicode, or `name` (a precise error for that field). */
function wellFormedText(obj: Obj, key: string, max: number, name: 'INVALID_USERNAME' | 'INVALID_DISPLAY_NAME'): string {
  const value = text(obj, key, key, max);
  if (LONE_SURROGATE.test(value)) throw new FidoError(name, `${key} is not well-formed Unicode (it holds a lone surrogate).`);
  return value;
}

function oneOf<T extends string>(obj: Obj, key: string, path: string, allowed: readonly T[]): T | undefined {
  if (!has(obj, key)) return undefined;
  const value = obj[key];
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw invalid(`${path} must be one of ${allowed.map((a) => `"${a}"`).join(', ')}`);
  }
  return value as T;
}

function base64url(obj: Obj, key: string, path: string, max = Infinity): string {
  const value = obj[key];
  if (typeof value !== 'string' || value.length === 0 || !isBase64url(value)) {
    throw invalid(`${path} must be a non-empty base64url string`);
  }
  if (value.length > max) throw invalid(`${path} must be at most ${max} characters`);
  return value;
}

/** WebAuthn L3 `hints`: an array of known hints, in order of preference (a repeated one counts once). */
function hints(obj: Obj): readonly Hint[] | undefined {
  if (!has(obj, 'hints')) return undefined;
  const list = obj.hints;
  if (!Array.isArray(list) || list.length > 8 || !list.every((h) => typeof h === 'string')) throw invalid('hints must be an array of at most 8 strings');
  const unknown = list.find((h) => !(HINTS as readonly string[]).includes(h));
  if (unknown !== undefined) {
    throw new FidoError('UNKNOWN_HINT', `hints holds ${JSON.stringify(String(unknown).slice(0, 40))}; known hints are ${HINTS.map((h) => `"${h}"`).join(', ')}`);
  }
  return [...new Set(list as Hint[])];
}

function optionalObject(obj: Obj, key: string, path: string): Extensions | undefined {
  if (!has(obj, key)) return undefined;
  const value = obj[key];
  if (!isObject(value)) throw invalid(`${path} must be an object`);
  return value;
}

function publicKeyType(obj: Obj): 'public-key' {
  if (obj.type !== 'public-key') throw invalid('type must be the string "public-key"');
  return 'public-key';
}

function credentialIds(obj: Obj): { id: string; rawId: string } {
  return {
    id: base64url(obj, 'id', 'id', MAX_CREDENTIAL_ID_CHARS),
    rawId: base64url(obj, 'rawId', 'rawId', MAX_CREDENTIAL_ID_CHARS),
  };
}

function responseObject(obj: Obj): Obj {
  if (!isObject(obj.response)) throw invalid('response must be an object');
  return obj.response;
}

/**
 * Client extension results: the specification's `extensions`; the W3C/conformance spellings
 * `clientExtensionResults` and `getClientExtensionResults` are accepted when `extensions` is absent.
 */
function extensionResults(obj: Obj): { extensions: Extensions; localMarker: unknown } {
  const own = optionalObject(obj, 'extensions', 'extensions');
  const fallback = own ?? optionalObject(obj, 'clientExtensionResults', 'clientExtensionResults')
    ?? optionalObject(obj, 'getClientExtensionResults', 'getClientExtensionResults');
  return { extensions: fallback ?? {}, localMarker: own?.localhost };
}

/**
 * The browser's top-level authenticatorAttachment, reported back in the ok answer. Any string is accepted
 * (a future value must not fail a sign-in); only the two WebAuthn defines are reported.
 */
function attachment(obj: Obj): { attachment?: Attachment } {
  if (!has(obj, 'authenticatorAttachment') || obj.authenticatorAttachment === null) return {};
  const value = obj.authenticatorAttachment;
  if (typeof value !== 'string') throw invalid('authenticatorAttachment must be a string or null');
  return (ATTACHMENT as readonly string[]).includes(value) ? { attachment: value as Attachment } : {};
}

function authenticatorSelection(obj: Obj): AuthenticatorSelection | undefined {
  if (!has(obj, 'authenticatorSelection')) return undefined;
  const sel = obj.authenticatorSelection;
  if (!isObject(sel)) throw invalid('authenticatorSelection must be an object');
  if (has(sel, 'requireResidentKey') && typeof sel.requireResidentKey !== 'boolean') {
    throw invalid('authenticatorSelection.requireResidentKey must be a boolean');
  }
  // Echo only the members WebAuthn defines, exactly as sent (never add one the caller did not send).
  const out: Record<string, unknown> = {};
  const attachment = oneOf(sel, 'authenticatorAttachment', 'authenticatorSelection.authenticatorAttachment', ATTACHMENT);
  if (attachment !== undefined) out.authenticatorAttachment = attachment;
  if (has(sel, 'requireResidentKey')) out.requireResidentKey = sel.requireResidentKey;
  const residentKey = oneOf(sel, 'residentKey', 'authenticatorSelection.residentKey', RESIDENT_KEY);
  if (residentKey !== undefined) out.residentKey = residentKey;
  const uv = oneOf(sel, 'userVerification', 'authenticatorSelection.userVerification', USER_VERIFICATION);
  if (uv !== undefined) out.userVerification = uv;
  return out as AuthenticatorSelection;
}

export function attestationOptionsRequest(value: unknown, limits: SchemaLimits): AttestationOptionsRequest {
  const obj = body(value);
  const username = wellFormedText(obj, 'username', limits.usernameLength, 'INVALID_USERNAME');
  const displayName = has(obj, 'displayName') ? wellFormedText(obj, 'displayName', limits.displayNameLength, 'INVALID_DISPLAY_NAME') : undefined;
  const selection = authenticatorSelection(obj);
  const attestation = oneOf(obj, 'attestation', 'attestation', ATTESTATION);
  const extensions = optionalObject(obj, 'extensions', 'extensions');
  const hinted = hints(obj);
  const mediation = oneOf(obj, 'mediation', 'mediation', CREATE_MEDIATION);
  return {
    username,
    ...(hinted !== undefined && { hints: hinted }),
    ...(displayName !== undefined && { displayName }),
    ...(selection !== undefined && { authenticatorSelection: selection }),
    ...(attestation !== undefined && { attestation }),
    ...(mediation === 'conditional' && { mediation }),
    ...(extensions !== undefined && { extensions }),
  };
}

export function assertionOptionsRequest(value: unknown, limits: SchemaLimits): AssertionOptionsRequest {
  const obj = body(value);
  const username = wellFormedText(obj, 'username', limits.usernameLength, 'INVALID_USERNAME');
  const userVerification = oneOf(obj, 'userVerification', 'userVerification', USER_VERIFICATION);
  const extensions = optionalObject(obj, 'extensions', 'extensions');
  const hinted = hints(obj);
  return {
    username,
    ...(hinted !== undefined && { hints: hinted }),
    ...(userVerification !== undefined && { userVerification }),
    ...(extensions !== undefined && { extensions }),
  };
}

function transports(response: Obj): readonly string[] | undefined {
  if (!has(response, 'transports')) return undefined;
  const list = response.transports;
  if (!Array.isArray(list) || list.length > MAX_TRANSPORTS || !list.every((t) => typeof t === 'string' && TRANSPORT.test(t))) {
    throw invalid(`response.transports must be an array of at most ${MAX_TRANSPORTS} transport names (1-32 characters of A-Z a-z 0-9 _ -)`);
  }
  return [...new Set(list as string[])];
}

/** What both result requests share, checked in this order: the ids, `type`, `response` and its clientDataJSON. */
function resultCommon(value: unknown) {
  const obj = body(value);
  const ids = credentialIds(obj);
  const type = publicKeyType(obj);
  const response = responseObject(obj);
  const clientDataJSON = base64url(response, 'clientDataJSON', 'response.clientDataJSON');
  return { obj, ids, type, response, clientDataJSON };
}

export function attestationResultRequest(value: unknown): AttestationResultRequest {
  const { obj, ids, type, response, clientDataJSON } = resultCommon(value);
  const attestationObject = base64url(response, 'attestationObject', 'response.attestationObject');
  const list = transports(response);
  return {
    ...ids,
    type,
    response: { clientDataJSON, attestationObject, ...(list !== undefined && { transports: list }) },
    ...extensionResults(obj),
    ...attachment(obj),
  };
}

export function assertionResultRequest(value: unknown): AssertionResultRequest {
  const { obj, ids, type, response, clientDataJSON } = resultCommon(value);
  const authenticatorData = base64url(response, 'authenticatorData', 'response.authenticatorData');
  const signature = base64url(response, 'signature', 'response.signature');
  let userHandle: string | null | undefined;
  if (has(response, 'userHandle') && response.userHandle !== null) {
    // Empty means "no user handle" (WebAuthn L3 allows it for non-discoverable credentials).
    const handle = response.userHandle;
    if (typeof handle !== 'string' || !isBase64url(handle) || handle.length > 86) {
      throw invalid('response.userHandle must be a base64url string of at most 64 bytes, or null');
    }
    userHandle = handle;
  } else if (has(response, 'userHandle')) {
    userHandle = null;
  }
  return {
    ...ids,
    type,
    response: { clientDataJSON, authenticatorData, signature, ...(userHandle !== undefined && { userHandle }) },
    ...extensionResults(obj),
    ...attachment(obj),
  };
}
