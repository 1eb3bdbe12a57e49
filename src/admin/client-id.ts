// Generated Client IDs: `app-` and 24 base32 characters (120 random bits), lower-case letters and digits only,
// so they pass every User-agent parser and read well aloud.
import type { Runtime } from '../util/runtime.js';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

export function generateClientId(runtime: Runtime): string {
  const bytes = runtime.randomBytes(15);
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  return `app-${out}`;
}
