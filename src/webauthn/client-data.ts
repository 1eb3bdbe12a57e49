// Collected client data (WebAuthn L3 §5.8.1): base64url → UTF-8 → JSON object of the expected shape.
// §7.1 steps 5-6 and 11, §7.2 steps 8-9 and 20: decode, parse, and hash the exact bytes once.

import { createHash } from 'node:crypto';
import { FidoError } from '../errors/catalogue.js';
import { decodeBase64url, isBase64url } from '../util/base64url.js';
import type { CollectedClientData } from './types.js';

const TOKEN_BINDING_STATUSES = new Set(['present', 'supported', 'not-supported']);
// Level 3 reserves the member; older clients wrote a bare status string, "unused" among them (docs/decisions.md).
const TOKEN_BINDING_STRINGS = new Set([...TOKEN_BINDING_STATUSES, 'unused']);
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function invalid(detail: string): FidoError {
  return new FidoError('INVALID_FORMAT_CLIENT_DATA_JSON', detail);
}

function requiredString(obj: Record<string, unknown>, name: string): string {
  const v = obj[name];
  if (v === undefined) throw invalid(`${name} is missing`);
  if (typeof v !== 'string') throw invalid(`${name} must be a string`);
  if (v.length === 0) throw invalid(`${name} must not be empty`);
  return v;
}

function parseTokenBinding(v: unknown): CollectedClientData['tokenBinding'] {
  if (v === undefined) return undefined;
  if (typeof v === 'string' && TOKEN_BINDING_STRINGS.has(v)) return { status: v };
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new FidoError(
      'TOKEN_BINDING_STATUS_MISSING',
      'tokenBinding must be an object or one of the status strings older clients sent',
    );
  }
  const { status, id } = v as Record<string, unknown>;
  if (typeof status !== 'string' || !TOKEN_BINDING_STATUSES.has(status)) {
    throw new FidoError(
      'TOKEN_BINDING_STATUS_MISSING',
      'tokenBinding.status must be present, supported or not-supported',
    );
  }
  if (id !== undefined && typeof id !== 'string') throw invalid('tokenBinding.id must be a string');
  return id === undefined ? { status } : { status, id };
}

/** Parses `response.clientDataJSON` (base64url text). Throws INVALID_FORMAT_CLIENT_DATA_JSON / TOKEN_BINDING_STATUS_MISSING. */
export function parseClientData(clientDataJSON: string): CollectedClientData {
  if (typeof clientDataJSON !== 'string') throw invalid('clientDataJSON must be a base64url string');
  const raw = decodeBase64url(clientDataJSON);
  if (!raw) throw invalid('clientDataJSON is not base64url');
  if (raw.length === 0) throw invalid('clientDataJSON is empty');
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw invalid('clientDataJSON is not valid UTF-8');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid('clientDataJSON is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw invalid('clientDataJSON must be a JSON object');
  const obj = parsed as Record<string, unknown>;

  const type = requiredString(obj, 'type');
  const challenge = requiredString(obj, 'challenge');
  if (!isBase64url(challenge)) throw invalid('challenge is not base64url');
  const origin = requiredString(obj, 'origin');
  const crossOrigin = obj.crossOrigin;
  if (crossOrigin !== undefined && typeof crossOrigin !== 'boolean') throw invalid('crossOrigin must be a boolean');
  const topOrigin = obj.topOrigin;
  if (topOrigin !== undefined && (typeof topOrigin !== 'string' || topOrigin.length === 0)) {
    throw invalid('topOrigin must be a non-empty string');
  }
  const tokenBinding = parseTokenBinding(obj.tokenBinding);

  return {
    type,
    challenge,
    origin,
    crossOrigin: crossOrigin === true,
    topOrigin,
    tokenBinding,
    raw,
    hash: createHash('sha256').update(raw).digest(),
  };
}
