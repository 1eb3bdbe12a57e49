// Bad input never crashes: truncated and bit-flipped statements of every format fail with a catalogue
// name (FidoError), never with another exception, and never pass.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FidoError } from '../../../src/errors/catalogue.js';
import { androidKey } from '../../../src/webauthn/attestation/android-key.js';
import { androidSafetynet } from '../../../src/webauthn/attestation/android-safetynet.js';
import { apple } from '../../../src/webauthn/attestation/apple.js';
import { tpm } from '../../../src/webauthn/attestation/tpm.js';
import type { AttestationFormat } from '../../../src/webauthn/attestation/types.js';
import type { CborValue } from '../../../src/webauthn/types.js';
import { androidKey as softAndroidKey } from '../../support/statements/android-key.js';
import { androidSafetynet as softSafetynet } from '../../support/statements/android-safetynet.js';
import { apple as softApple } from '../../support/statements/apple.js';
import { tpm as softTpm } from '../../support/statements/tpm.js';
import type { StatementBuilder } from '../../support/statements/types.js';
import { createAttestationCa } from '../../support/pki.js';
import { createTrustEvaluator } from '../../../src/webauthn/trust.js';
import { buildInput } from './harness.js';

const ROUNDS = 60;

/** A seeded generator (xorshift32), so every run damages the same bytes: the test is deterministic. */
function seeded(seed: number): (below: number) => number {
  let x = seed >>> 0 || 1;
  return (below) => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % below;
  };
}
let randomInt = seeded(0x5eed);

/**
 * Truncates, or flips bits below `limit`. For certificates the limit keeps flips inside the signed
 * TBSCertificate: OpenSSL ignores some bits of the outer signature encoding, which is no defect.
 */
function damage(bytes: Buffer, limit = bytes.length): Buffer {
  const copy = Buffer.from(bytes);
  if (randomInt(3) === 0) return copy.subarray(0, randomInt(copy.length));
  const flips = 1 + randomInt(4);
  for (let i = 0; i < flips; i++) {
    const at = randomInt(limit);
    copy[at] = copy[at]! ^ (1 << randomInt(8));
  }
  return copy;
}

function hammer(
  format: AttestationFormat,
  builder: StatementBuilder,
  fields: readonly string[],
  alg: number,
  extra: Record<string, unknown> = {},
): void {
  const ca = createAttestationCa(
    'Hostile Test Vendor',
    format.fmt === 'tpm' || format.fmt === 'android-safetynet' ? 'rsa2048' : 'p256',
  );
  const input = buildInput(builder, { alg, extra: { ...extra, ca }, now: new Date() });
  // The trust evaluator checks what a format leaves to it (certificate signatures): both together must refuse.
  const trust = createTrustEvaluator({ anchors: [ca.root.cert], requireTrusted: true });
  const verifyAndTrust = (attStmt: Map<CborValue, CborValue>) => {
    const outcome = format.verify({ ...input, attStmt });
    trust.evaluate({ fmt: format.fmt, aaguid: '00000000-0000-4000-8000-000000000001', outcome, now: input.now });
  };
  verifyAndTrust(input.attStmt); // the undamaged statement passes
  randomInt = seeded(0x5eed + format.fmt.length);
  for (let round = 0; round < ROUNDS; round++) {
    const field = fields[round % fields.length]!;
    const attStmt = new Map<CborValue, CborValue>(input.attStmt);
    const value = attStmt.get(field);
    if (Array.isArray(value))
      attStmt.set(
        field,
        value.map((v, i) => (i === 0 && Buffer.isBuffer(v) ? damage(v, v.length - 160) : v)),
      );
    else if (Buffer.isBuffer(value)) attStmt.set(field, damage(value));
    assert.throws(
      () => verifyAndTrust(attStmt),
      (err: unknown) => {
        if (!(err instanceof FidoError)) throw err;
        return true;
      },
      `${format.fmt}.${field} damaged must fail with a catalogue name`,
    );
  }
}

describe('hostile attestation statements', () => {
  it('tpm: damaged certInfo, pubArea, sig and AIK certificate', () => {
    hammer(tpm, softTpm, ['certInfo', 'pubArea', 'sig', 'x5c'], -257);
  });
  it('android-key: damaged sig and attestation certificate', () => {
    hammer(androidKey, softAndroidKey, ['sig', 'x5c'], -7);
  });
  it('android-safetynet: damaged JWS', () => {
    hammer(androidSafetynet, softSafetynet, ['response'], -7, { timestampMs: Date.now() - 1_000 });
  });
  it('apple: damaged credential certificate', () => {
    hammer(apple, softApple, ['x5c'], -7);
  });
});
