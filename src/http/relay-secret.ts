// The relay secret check (docs/api.md "Relay secrets"): when the application has relay secrets, or requires
// one (`requireRelaySecret`: set from its first secret on, so revoking the last one leaves every call
// refused, never open), the request must carry `Authorization: Bearer <secret>` whose SHA-256 equals one of them. Runs right after the
// application is known, before the body is read. One hash per request, then a constant-time compare
// against every stored hash (no early exit, so the time tells nothing about which one or how close).
import { createHash, timingSafeEqual } from 'node:crypto';
import { FidoError } from '../errors/catalogue.js';
import type { Application } from '../ceremonies/deps.js';

const PREFIX = 'sha256:';
/** RFC 6750 §2.1 b64token, bounded. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]{1,512}=*) *$/i;

/** The stored hashes as bytes, once per application object (the directory caches those). */
const decoded = new WeakMap<Application, readonly Buffer[]>();

function hashesOf(application: Application): readonly Buffer[] {
  let hashes = decoded.get(application);
  if (hashes === undefined) {
    hashes = (application.relaySecrets ?? []).map((entry) => Buffer.from(entry.slice(PREFIX.length), 'hex'));
    decoded.set(application, hashes);
  }
  return hashes;
}

/**
 * Throws RELAY_SECRET_MISSING (no `Authorization: Bearer`) or RELAY_SECRET_INVALID (one that matches none)
 * when the application has relay secrets or requires one (with none left, every call fails). Returns the
 * matching entry (`sha256:<hex>`, to note its use), or null when the application asks for none (the header
 * is then ignored).
 */
export function checkRelaySecret(application: Application, header: readonly string[] | undefined): string | null {
  const hashes = hashesOf(application);
  if (hashes.length === 0 && application.requireRelaySecret !== true) return null;
  if (header === undefined || header.length === 0) throw new FidoError('RELAY_SECRET_MISSING');
  if (header.length > 1) throw new FidoError('RELAY_SECRET_INVALID', 'Send exactly one Authorization header.');
  const match = BEARER.exec(header[0]!);
  if (match === null) {
    throw new FidoError(
      'RELAY_SECRET_MISSING',
      "This application's relay must send its relay secret as Authorization: Bearer <secret>.",
    );
  }
  const presented = createHash('sha256').update(match[1]!, 'utf8').digest();
  let found = -1;
  for (let index = 0; index < hashes.length; index++) {
    // Every hash is compared: the loop never stops at the first match.
    if (timingSafeEqual(presented, hashes[index]!) && found < 0) found = index;
  }
  if (found < 0) throw new FidoError('RELAY_SECRET_INVALID');
  return application.relaySecrets![found]!;
}
