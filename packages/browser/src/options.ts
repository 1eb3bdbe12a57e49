// The service's options answers → the arguments of navigator.credentials.create()/get(). Uses the
// browser's own PublicKeyCredential.parseCreationOptionsFromJSON / parseRequestOptionsFromJSON where
// they exist and the same conversion by hand where they do not. Browser globals are read only inside the
// functions, never when the module loads, so server-side code and tests can import it.
import { base64urlToBuffer } from './base64url.js';

/** A JSON object as the service (through the relay) answers it: the envelope plus the options. */
export type OptionsJSON = Readonly<Record<string, unknown>>;

/** Members of the answer that are not WebAuthn options: the envelope, and `mediation` (an argument of the call, not of `publicKey`). */
const ENVELOPE_FIELDS = ['status', 'errorMessage', 'sessionId', 'mediation'];

interface DescriptorJSON {
  readonly id: string;
  readonly [member: string]: unknown;
}

interface ParsingConstructor {
  parseCreationOptionsFromJSON?: (options: unknown) => PublicKeyCredentialCreationOptions;
  parseRequestOptionsFromJSON?: (options: unknown) => PublicKeyCredentialRequestOptions;
}

/** The browser's PublicKeyCredential, when there is one (never in Node.js). */
function nativeParsers(): ParsingConstructor | undefined {
  const native = (globalThis as { PublicKeyCredential?: unknown }).PublicKeyCredential;
  return typeof native === 'function' ? (native as ParsingConstructor) : undefined;
}

/** Drops the envelope, `mediation` and every null/empty-string member: WebAuthn's dictionaries reject null enums. */
function cleanOptions(json: OptionsJSON, top = true): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json)) {
    if ((top && ENVELOPE_FIELDS.includes(key)) || value === null || value === '') continue;
    copy[key] = typeof value === 'object' && !Array.isArray(value) ? cleanOptions(value as OptionsJSON, false) : value;
  }
  return copy;
}

function withIds(list: unknown): PublicKeyCredentialDescriptor[] {
  if (!Array.isArray(list)) return [];
  return (list as DescriptorJSON[]).map(
    (descriptor) => ({ ...descriptor, id: base64urlToBuffer(descriptor.id) }) as PublicKeyCredentialDescriptor,
  );
}

function challengeOf(options: Record<string, unknown>): ArrayBuffer {
  if (typeof options.challenge !== 'string') throw new TypeError('the options carry no challenge');
  return base64urlToBuffer(options.challenge);
}

/** Attestation options answer → `{ publicKey }` for navigator.credentials.create(). */
export function creationOptionsFromJSON(json: OptionsJSON): { publicKey: PublicKeyCredentialCreationOptions } {
  const options = cleanOptions(json);
  const parse = nativeParsers()?.parseCreationOptionsFromJSON;
  if (typeof parse === 'function') return { publicKey: parse(options) };
  const user = options.user as { id?: unknown } | undefined;
  if (typeof user?.id !== 'string') throw new TypeError('the options carry no user.id');
  return {
    publicKey: {
      ...options,
      challenge: challengeOf(options),
      user: { ...user, id: base64urlToBuffer(user.id) },
      excludeCredentials: withIds(options.excludeCredentials),
    } as unknown as PublicKeyCredentialCreationOptions,
  };
}

/** Assertion options answer → `{ publicKey }` for navigator.credentials.get(). */
export function requestOptionsFromJSON(json: OptionsJSON): { publicKey: PublicKeyCredentialRequestOptions } {
  const options = cleanOptions(json);
  const parse = nativeParsers()?.parseRequestOptionsFromJSON;
  if (typeof parse === 'function') return { publicKey: parse(options) };
  return {
    publicKey: {
      ...options,
      challenge: challengeOf(options),
      allowCredentials: withIds(options.allowCredentials),
    } as unknown as PublicKeyCredentialRequestOptions,
  };
}
