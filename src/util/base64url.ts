// Strict base64url (RFC 4648 §5) without padding: the only encoding WebAuthn JSON uses for bytes.
// Node's decoder silently skips bad characters, so we check the alphabet and length ourselves.

const ALPHABET = /^[A-Za-z0-9_-]*$/;

export function isBase64url(text: string): boolean {
  return ALPHABET.test(text) && text.length % 4 !== 1;
}

/** Decodes strict base64url; returns undefined for padding, other alphabets or an impossible length. */
export function decodeBase64url(text: string): Buffer | undefined {
  if (!isBase64url(text)) return undefined;
  return Buffer.from(text, 'base64url');
}

export function encodeBase64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}
