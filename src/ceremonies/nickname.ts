// A passkey's name as its owner gives it (POST /api/credentials/rename): the admin rename's rule, trimmed,
// then 1 to 64 characters (code points) without control characters; null clears it. Anything else is
// INVALID_NICKNAME with a sentence that says what a name may be, so a page can show it as it is.
import { FidoError } from '../errors/catalogue.js';

/**
 * At most this many characters: the admin rename's bound (schemas/admin.ts NICKNAME_MAX, which the request
 * schema's text repeats as OWN_NICKNAME_MAX); ceremonies take only types from schemas/, so it is written
 * here too, and test/ceremonies/own-credentials-rename.test.ts holds the two to it (64 taken, 65 refused).
 */
const OWN_NICKNAME_MAX = 64;

// C0 and C1 controls and DEL; a lone surrogate (not half of a pair) would be stored as U+FFFD.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** The name to store: trimmed, or null to clear it. */
export function normalizeNickname(nickname: string | null): string | null {
  if (nickname === null) return null;
  const trimmed = nickname.trim();
  const rule = `A passkey's name has 1 to ${OWN_NICKNAME_MAX} characters (spaces around it do not count)`;
  if (trimmed === '') throw new FidoError('INVALID_NICKNAME', `${rule}; this one is empty. Send null to clear it.`);
  if ([...trimmed].length > OWN_NICKNAME_MAX)
    throw new FidoError('INVALID_NICKNAME', `${rule}; this one has ${[...trimmed].length}.`);
  if (CONTROL.test(trimmed) || LONE_SURROGATE.test(trimmed))
    throw new FidoError('INVALID_NICKNAME', `${rule}, and no control characters or broken Unicode.`);
  return trimmed;
}
