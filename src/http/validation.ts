// Reading the four request bodies: each schema of schemas/requests.ts compiled once (at buildApp), the
// first failure turned into INVALID_REQUEST_BODY with a detail that names the field, e.g.
// "response.clientDataJSON must be a non-empty base64url string", then the checked body shaped into
// what the ceremonies read.

import type { Hint } from '../service-config.js';
import { HINTS } from '../schemas/values.js';
import { FidoError } from '../errors/catalogue.js';
import type { Attachment } from '../ceremonies/outcome.js';
import type {
  AssertionOptionsRequest,
  AssertionResultRequest,
  AttestationOptionsRequest,
  AttestationResultRequest,
  AuthenticatorSelection,
  CredentialsDeleteRequest,
  CredentialsListRequest,
  CredentialsRenameRequest,
  Extensions,
} from '../ceremonies/inputs.js';
import {
  credentialsDeleteRequestSchema,
  credentialsListRequestSchema,
  credentialsRenameRequestSchema,
} from '../schemas/credentials.js';
import {
  AssertionResultRequestSchema,
  AttestationResultRequestSchema,
  assertionOptionsRequestSchema,
  attestationOptionsRequestSchema,
  type AssertionResultBody,
  type AttestationResultBody,
  type RequestLimits,
} from '../schemas/requests.js';
import { compile, type Validator } from '../schemas/typebox.js';

export interface RequestReaders {
  attestationOptions(body: unknown): AttestationOptionsRequest;
  assertionOptions(body: unknown): AssertionOptionsRequest;
  attestationResult(body: unknown): AttestationResultRequest;
  assertionResult(body: unknown): AssertionResultRequest;
  credentialsList(body: unknown): CredentialsListRequest;
  credentialsDelete(body: unknown): CredentialsDeleteRequest;
  credentialsRename(body: unknown): CredentialsRenameRequest;
}

/** Compiles the four schemas for these limits; call once per app, never per request. */
export function compileRequestReaders(limits: RequestLimits): RequestReaders {
  const attestationOptions = compile(attestationOptionsRequestSchema(limits));
  const assertionOptions = compile(assertionOptionsRequestSchema(limits));
  const attestationResult = compile(AttestationResultRequestSchema);
  const assertionResult = compile(AssertionResultRequestSchema);
  const credentialsList = compile(credentialsListRequestSchema(limits));
  const credentialsDelete = compile(credentialsDeleteRequestSchema(limits));
  const credentialsRename = compile(credentialsRenameRequestSchema(limits));
  return {
    credentialsList(body) {
      const request = checked(credentialsList, body);
      wellFormed(request.username, 'username', 'INVALID_USERNAME');
      return request;
    },
    credentialsDelete(body) {
      const request = checked(credentialsDelete, body);
      wellFormed(request.username, 'username', 'INVALID_USERNAME');
      return request;
    },
    credentialsRename(body) {
      const request = checked(credentialsRename, body);
      wellFormed(request.username, 'username', 'INVALID_USERNAME');
      return request;
    },
    attestationOptions(body) {
      const request = checked(attestationOptions, body);
      wellFormed(request.username, 'username', 'INVALID_USERNAME');
      if (request.displayName !== undefined) wellFormed(request.displayName, 'displayName', 'INVALID_DISPLAY_NAME');
      const { hints, authenticatorSelection, mediation, ...rest } = request;
      return {
        ...rest,
        ...(mediation === 'conditional' && { mediation }),
        ...(hints !== undefined && { hints: knownHints(hints) }),
        ...(authenticatorSelection !== undefined && { authenticatorSelection: knownSelection(authenticatorSelection) }),
      };
    },
    assertionOptions(body) {
      const { hints, ...request } = checked(assertionOptions, body);
      wellFormed(request.username, 'username', 'INVALID_USERNAME');
      return { ...request, ...(hints !== undefined && { hints: knownHints(hints) }) };
    },
    attestationResult(body) {
      const { id, rawId, type, response } = checked(attestationResult, body);
      const { clientDataJSON, attestationObject, transports } = response;
      return {
        id,
        rawId,
        type,
        response: {
          clientDataJSON,
          attestationObject,
          ...(transports !== undefined && { transports: [...new Set(transports)] }),
        },
        ...extensionResults(body as AttestationResultBody),
        ...attachment(body as AttestationResultBody),
      };
    },
    assertionResult(body) {
      const { id, rawId, type, response } = checked(assertionResult, body);
      const { clientDataJSON, authenticatorData, signature, userHandle } = response;
      return {
        id,
        rawId,
        type,
        response: { clientDataJSON, authenticatorData, signature, ...(userHandle !== undefined && { userHandle }) },
        ...extensionResults(body as AssertionResultBody),
        ...attachment(body as AssertionResultBody),
      };
    },
  };
}

function checked<T>(validator: Validator<T>, body: unknown): T {
  if (validator.check(body)) return body;
  const failure = validator.firstFailure(body);
  const detail =
    failure === undefined ? undefined : `${failure.path === '' ? 'The request body' : failure.path} ${failure.problem}`;
  throw new FidoError('INVALID_REQUEST_BODY', detail);
}

// With the `u` flag a surrogate in a class matches only when it is not half of a pair: a lone surrogate.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * A name the service keys or shows must be well-formed Unicode (no lone surrogate): UTF-8 turns each into
 * U+FFFD, so names that differ only there would become one user once stored. Its own error name, so the
 * check follows the schema's.
 */
function wellFormed(value: string, field: string, name: 'INVALID_USERNAME' | 'INVALID_DISPLAY_NAME'): void {
  if (LONE_SURROGATE.test(value))
    throw new FidoError(name, `${field} is not well-formed Unicode (it holds a lone surrogate).`);
}

/** WebAuthn L3 `hints`: only known ones (else UNKNOWN_HINT, naming it), a repeated one counted once. */
function knownHints(list: readonly string[]): readonly Hint[] {
  const unknown = list.find((h) => !(HINTS as readonly string[]).includes(h));
  if (unknown !== undefined) {
    throw new FidoError(
      'UNKNOWN_HINT',
      `hints holds ${JSON.stringify(unknown.slice(0, 40))}; known hints are ${HINTS.map((h) => `"${h}"`).join(', ')}`,
    );
  }
  return [...new Set(list as readonly Hint[])];
}

/** Echo only the members WebAuthn defines, exactly as sent (never add one the caller did not send). */
function knownSelection(sent: AuthenticatorSelection): AuthenticatorSelection {
  const { authenticatorAttachment, requireResidentKey, residentKey, userVerification } = sent;
  return {
    ...(authenticatorAttachment !== undefined && { authenticatorAttachment }),
    ...(requireResidentKey !== undefined && { requireResidentKey }),
    ...(residentKey !== undefined && { residentKey }),
    ...(userVerification !== undefined && { userVerification }),
  };
}

/** The browser's top-level authenticatorAttachment, reported back in the ok answer when WebAuthn defines it. */
function attachment(body: AttestationResultBody | AssertionResultBody): { attachment?: Attachment } {
  const value = body.authenticatorAttachment;
  return value === 'platform' || value === 'cross-platform' ? { attachment: value } : {};
}

/** `extensions`, else one of the other two spellings, else none; the local marker only from `extensions`. */
function extensionResults(body: AttestationResultBody | AssertionResultBody): {
  extensions: Extensions;
  localMarker: unknown;
} {
  const own = body.extensions;
  return {
    extensions: own ?? body.clientExtensionResults ?? body.getClientExtensionResults ?? {},
    localMarker: own?.localhost,
  };
}
