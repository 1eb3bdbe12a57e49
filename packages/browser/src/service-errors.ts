// The service's (and the relay's) error names → short sentences a user can read, beside the name and the
// service's own description, which are for logs and developers. English by default; pass your own
// sentences (a partial table merged over these) to translate or reword them.

/** Sentence keys: one per thing a user can do about a failure. */
const SENTENCES = {
  expired: 'This attempt expired or was already used. Please start again.',
  pageAddress:
    "This page's address may not use this site's passkeys. Open the site at its usual address and try again.",
  // A configuration error of the site (its relay, its service, its addresses): never the user's fault.
  siteSetup:
    "This site's passkey sign-in is not set up correctly. This is not your fault: please try again later or tell the site's support.",
  unreadable: "Your authenticator's answer could not be checked. Please try again, or use another authenticator.",
  presence: 'Your authenticator did not confirm that you were there. Touch it or confirm on your device when asked.',
  verification:
    'This site needs your authenticator to verify you (PIN, fingerprint or face). Use one that can, or set one up.',
  authenticatorRefused: 'This site does not accept this authenticator. Please use another security key or device.',
  syncedOnly:
    "This site accepts only passkeys that sync across your devices (kept by your phone's or password manager's account).",
  deviceBoundOnly: 'This site accepts only passkeys that stay on one device, such as a security key.',
  duplicate: 'This passkey is already registered.',
  unknownPasskey:
    'This site does not know this passkey (it may have been removed). Sign in another way, or register a new passkey.',
  otherAccount: 'This passkey belongs to another account.',
  needsUsername: 'This passkey cannot sign you in without your user name. Enter your user name, then sign in.',
  signature: 'The passkey could not be verified. Please try again.',
  cloned: 'For your safety the site refused this security key: it may have been copied. Please contact support.',
  username: 'This user name cannot be used here. Check it and try again.',
  registrationRefused: 'You cannot add a passkey to this account now. Sign in first, then add one.',
  passkeyLimit:
    'This account has as many passkeys as this site allows. Remove one you no longer use, then add this one.',
  localBlob: "The site's record of this passkey is unusable. Please register the passkey again.",
  tooMany: 'Too many attempts. Please wait a moment and try again.',
  unavailable: 'Passkey sign-in is unavailable right now. Please try again in a few minutes.',
  saveFailed: 'The passkey could not be saved. Please register it again.',
  signInAgain: 'For your safety, please sign in again before you change your passkeys.',
  nickname: "A passkey's name must have 1 to 64 characters, without line breaks or tabs.",
  // What the browser itself answered (the high-level calls word every browser refusal with these).
  cancelled: 'Nothing happened: the request was cancelled or timed out. Try again when you are ready.',
  notCreated: 'No passkey was created: the request was cancelled, timed out, or no authenticator answered.',
  notSignedIn: 'Not signed in: the request was cancelled, timed out, or this device holds no passkey for this site.',
  alreadyOnDevice: 'This device already holds a passkey for this account.',
  authenticatorUnsuitable: 'This device or security key cannot create the kind of passkey this site needs.',
  noPasskeys: 'This browser does not support passkeys. Please use an up-to-date browser.',
  offline: 'The site could not be reached. Check your connection and try again.',
  unknown: 'Something went wrong. Please try again.',
} as const;

export type SentenceKey = keyof typeof SENTENCES;

/** The sentences a page shows, by key; replace some or all of them with `messages`. */
export type UserSentences = Readonly<Record<SentenceKey, string>>;

export const ENGLISH_SENTENCES: UserSentences = SENTENCES;

/** Names whose sentence is not found by their family (below). */
const BY_NAME: Readonly<Record<string, SentenceKey>> = {
  INVALID_USERNAME: 'username',
  SESSION_NOT_FOUND: 'expired',
  SESSION_ALREADY_REVOKED: 'expired',
  CHALLENGE_NOT_MATCHED: 'expired',
  RELAY_CEREMONY_UNKNOWN: 'expired',
  // The relay sends the origin it was configured with: a service that refuses it is misconfigured.
  ORIGIN_NOT_ALLOWED: 'siteSetup',
  INVALID_ORIGIN: 'siteSetup',
  ORIGIN_NOT_MATCHED: 'pageAddress',
  // The relay refused a call from another site's page (a forged form or request).
  CROSS_SITE_REQUEST: 'pageAddress',
  CROSS_ORIGIN_NOT_ALLOWED: 'pageAddress',
  TOP_ORIGIN_NOT_MATCHED: 'pageAddress',
  RPID_HASH_NOT_MATCHED: 'siteSetup',
  USER_PRESENCE_FLAG_NOT_SET: 'presence',
  USER_VERIFICATION_FLAG_NOT_SET: 'verification',
  INVALID_COSE_ALGORITHM: 'authenticatorRefused',
  NOT_ALLOWED_COSE_ALGORITHM: 'authenticatorRefused',
  AUTHENTICATOR_STATUS_NOT_ACCEPTED: 'authenticatorRefused',
  BACKUP_ELIGIBILITY_REQUIRED: 'syncedOnly',
  BACKUP_ELIGIBILITY_NOT_ALLOWED: 'deviceBoundOnly',
  UNKNOWN_HINT: 'siteSetup',
  UNSUPPORTED_ATTESTATION_FORMAT: 'authenticatorRefused',
  DUPLICATED_CREDENTIAL_ID: 'duplicate',
  CREDENTIAL_ID_NOT_FOUND: 'unknownPasskey',
  LOCAL_CREDENTIAL_UNKNOWN: 'unknownPasskey',
  USER_HANDLE_NOT_MATCHED: 'otherAccount',
  USER_HANDLE_MISSING: 'needsUsername',
  ASSERTION_SIGNATURE_VERIFICATION_FAIL: 'signature',
  SIGNATURE_COUNTER_NOT_INCREASED: 'cloned',
  REGISTRATION_NOT_ALLOWED: 'registrationRefused',
  SIGN_IN_REQUIRED: 'registrationRefused',
  PASSKEY_LIMIT_REACHED: 'passkeyLimit',
  INVALID_NICKNAME: 'nickname',
  RATE_LIMITED: 'tooMany',
  // Managing one's own passkeys needs a recent sign-in (POST /api/credentials/*).
  CREDENTIALS_TOKEN_INVALID: 'signInAgain',
  CREDENTIALS_TOKEN_EXPIRED: 'signInAgain',
  RELAY_NOT_SIGNED_IN: 'signInAgain',
  // What the HTTP parser refused: the site's own relay or network sent something broken, or too slowly.
  MALFORMED_HTTP_REQUEST: 'siteSetup',
  REQUEST_HEADERS_TOO_LARGE: 'siteSetup',
  REQUEST_TIMEOUT: 'unavailable',
  SERVICE_UNAVAILABLE: 'unavailable',
  INTERNAL_SERVER_ERROR: 'unavailable',
  RELAY_INTERNAL_ERROR: 'unavailable',
  RELAY_STORE_FAILED: 'saveFailed',
  // Names the browser helper gives to what happened before an answer arrived (relay-client.ts).
  RELAY_UNREACHABLE: 'offline',
  RELAY_INVALID_RESPONSE: 'siteSetup',
  WEBAUTHN_UNSUPPORTED: 'noPasskeys',
  INSECURE_CONTEXT: 'siteSetup',
  // The browser's own exceptions from create()/get() (DOMException names).
  AbortError: 'cancelled',
  SecurityError: 'siteSetup',
  TypeError: 'siteSetup',
  NotSupportedError: 'authenticatorUnsuitable',
  ConstraintError: 'authenticatorUnsuitable',
};

/** Families of names, tried in order after BY_NAME. */
const BY_FAMILY: readonly (readonly [RegExp, SentenceKey])[] = [
  [/^RELAY_UPSTREAM_/, 'unavailable'],
  // The relay's shared secret with the service is missing or wrong: the site's configuration.
  [/^RELAY_SECRET_/, 'siteSetup'],
  [/^LOCAL_(BLOB|EXTENSION)_/, 'localBlob'],
  [
    /^(NOT_FOUND|METHOD_NOT_ALLOWED|UNSUPPORTED_MEDIA_TYPE|PAYLOAD_TOO_LARGE|MALFORMED_JSON|INVALID_REQUEST_BODY|CLIENT_ID_|ORIGIN_HEADER_|VARIANT_|LOCAL_VARIANT_|RPID_NOT_FOUND)/,
    'siteSetup',
  ],
  [/(^AAGUID_|ATTESTATION|CERTIFICATE|METADATA_BLOB)/, 'authenticatorRefused'],
  [/^(INVALID_|TOKEN_BINDING_|CREDENTIAL_|USER_PUBLIC_KEY_)/, 'unreadable'],
];

/** The sentence key of an error name (`unknown` for a name this version does not know). */
export function sentenceKeyOf(name: string): SentenceKey {
  const direct = BY_NAME[name];
  if (direct !== undefined) return direct;
  for (const [pattern, key] of BY_FAMILY) if (pattern.test(name)) return key;
  return 'unknown';
}

/** A sentence for the user about the error `name`, from `messages` where given, else English. */
export function userMessage(name: string, messages: Partial<UserSentences> = {}): string {
  const key = sentenceKeyOf(name);
  return messages[key] ?? ENGLISH_SENTENCES[key];
}

/** A failed answer, read: `name` and `detail` for logs and developers, `message` for the user. */
export interface Failure {
  readonly name: string;
  readonly detail: string;
  readonly message: string;
}

/**
 * Reads the envelope `{status: "failed", errorMessage: [NAME, description], sessionId}` of the service or
 * the relay (also a bare string `errorMessage`, which the specification allows) or anything else a broken
 * proxy may answer.
 */
export function describeFailure(envelope: unknown, messages: Partial<UserSentences> = {}): Failure {
  const errorMessage = (envelope as { errorMessage?: unknown } | null)?.errorMessage;
  const parts = Array.isArray(errorMessage)
    ? errorMessage.filter((part): part is string => typeof part === 'string' && part !== '')
    : typeof errorMessage === 'string' && errorMessage !== ''
      ? [errorMessage]
      : [];
  const [first = '', ...rest] = parts;
  const name = /^[A-Z][A-Z0-9_]*$/.test(first) ? first : '';
  const detail = (name === '' ? parts : rest).join(' ');
  return { name, detail, message: userMessage(name, messages) };
}
