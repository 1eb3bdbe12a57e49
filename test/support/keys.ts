// Key pairs that are safe to export and use on Node.js 20.
//
// Why not generateKeyPairSync: in Node 20, a finished key-generation job keeps a reference to the key it
// made, and its destructor (run by the garbage collector) locks that key's mutex. When the collector runs
// inside an operation that already holds the same mutex — exporting the key as JWK allocates strings while
// holding it — the thread waits on itself forever. We saw it as test files that hung at random (a native
// stack: ExportJWK → GC → ~KeyGenJob → mutex lock). Keys imported from raw material have no such job, so
// every key pair here is built from random bytes and imported.

import {
  createECDH,
  createPrivateKey,
  createPublicKey,
  generatePrimeSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';

export interface KeyPair {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}

export type KeyKind =
  | { readonly type: 'ec'; readonly curve: 'P-256' | 'P-384' | 'P-521' | 'secp256k1' }
  | { readonly type: 'ed25519' }
  | { readonly type: 'rsa'; readonly modulusLength: number };

const EC_CURVES = {
  'P-256': { openssl: 'prime256v1', size: 32 },
  'P-384': { openssl: 'secp384r1', size: 48 },
  'P-521': { openssl: 'secp521r1', size: 66 },
  secp256k1: { openssl: 'secp256k1', size: 32 },
} as const;

/** PKCS#8 prefix of an Ed25519 private key (RFC 8410): the 32-byte seed follows it. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const RSA_PUBLIC_EXPONENT = 65537n;

export function generateKeyPair(kind: KeyKind): KeyPair {
  switch (kind.type) {
    case 'ec':
      return fromPrivate(ecPrivateKey(kind.curve));
    case 'ed25519':
      return fromPrivate(
        createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, randomBytes(32)]), format: 'der', type: 'pkcs8' }),
      );
    case 'rsa':
      return fromPrivate(rsaPrivateKey(kind.modulusLength));
  }
}

function fromPrivate(privateKey: KeyObject): KeyPair {
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

function ecPrivateKey(curve: keyof typeof EC_CURVES): KeyObject {
  const { openssl, size } = EC_CURVES[curve];
  const ecdh = createECDH(openssl);
  const point = ecdh.generateKeys(); // 0x04 ‖ x ‖ y
  const d = ecdh.getPrivateKey();
  return createPrivateKey({
    format: 'jwk',
    key: {
      kty: 'EC',
      crv: curve,
      d: leftPad(d, size).toString('base64url'),
      x: point.subarray(1, 1 + size).toString('base64url'),
      y: point.subarray(1 + size).toString('base64url'),
    },
  });
}

/** An RSA key from two random primes (CRT form), imported as JWK. */
function rsaPrivateKey(modulusLength: number): KeyObject {
  const e = RSA_PUBLIC_EXPONENT;
  for (let attempt = 0; attempt < 16; attempt += 1) {
    const p = generatePrimeSync(modulusLength / 2, { bigint: true });
    const q = generatePrimeSync(modulusLength / 2, { bigint: true });
    const n = p * q;
    if (p === q || bitLength(n) !== modulusLength) continue;
    const phi = (p - 1n) * (q - 1n);
    const d = modInverse(e, phi);
    if (d === undefined) continue; // e shares a factor with p-1 or q-1: draw again
    const jwk = {
      kty: 'RSA',
      n: b64u(n),
      e: b64u(e),
      d: b64u(d),
      p: b64u(p),
      q: b64u(q),
      dp: b64u(d % (p - 1n)),
      dq: b64u(d % (q - 1n)),
      qi: b64u(modInverse(q, p)!),
    };
    return createPrivateKey({ format: 'jwk', key: jwk });
  }
  throw new Error(`could not build an RSA-${modulusLength} key`);
}

function modInverse(a: bigint, m: bigint): bigint | undefined {
  let [oldR, r] = [((a % m) + m) % m, m];
  let [oldS, s] = [1n, 0n];
  while (r !== 0n) {
    const quotient = oldR / r;
    [oldR, r] = [r, oldR - quotient * r];
    [oldS, s] = [s, oldS - quotient * s];
  }
  return oldR === 1n ? ((oldS % m) + m) % m : undefined;
}

function bitLength(value: bigint): number {
  return value.toString(2).length;
}

function b64u(value: bigint): string {
  const hex = value.toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex').toString('base64url');
}

function leftPad(bytes: Buffer, size: number): Buffer {
  return bytes.length >= size ? bytes : Buffer.concat([Buffer.alloc(size - bytes.length), bytes]);
}
