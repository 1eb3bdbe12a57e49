// The CBOR encoder (CTAP2 canonical form, CTAP 2.1 §8: smallest heads, definite lengths, map keys sorted by
// major type, then encoded length, then bytes). Used by the unknown-user stand-in credential, the soft
// authenticator, tests and benchmarks; the strict decoder is cbor.ts.

import { CborError, CborTag } from './cbor.js';
import type { CborValue } from './types.js';

/** Values the encoder accepts: CBOR values, plus plain objects as text-keyed maps and any Uint8Array. */
export type CborEncodable =
  | CborValue
  | Uint8Array
  | CborTag
  | readonly CborEncodable[]
  | ReadonlyMap<CborEncodable, CborEncodable>
  | { readonly [key: string]: CborEncodable };

function head(major: number, n: number | bigint): Buffer {
  const big = BigInt(n);
  if (big < 0n || big > 0xffff_ffff_ffff_ffffn) throw new CborError(`argument ${n} out of range`);
  const m = major << 5;
  if (big < 24n) return Buffer.from([m | Number(big)]);
  if (big <= 0xffn) return Buffer.from([m | 24, Number(big)]);
  if (big <= 0xffffn) {
    const b = Buffer.alloc(3);
    b[0] = m | 25;
    b.writeUInt16BE(Number(big), 1);
    return b;
  }
  if (big <= 0xffff_ffffn) {
    const b = Buffer.alloc(5);
    b[0] = m | 26;
    b.writeUInt32BE(Number(big), 1);
    return b;
  }
  const b = Buffer.alloc(9);
  b[0] = m | 27;
  b.writeBigUInt64BE(big, 1);
  return b;
}

function encodeInteger(n: number | bigint): Buffer {
  const big = BigInt(n);
  return big >= 0n ? head(0, big) : head(1, -1n - big);
}

function compareKeys(a: Buffer, b: Buffer): number {
  const ma = a[0]! >> 5;
  const mb = b[0]! >> 5;
  if (ma !== mb) return ma - mb;
  if (a.length !== b.length) return a.length - b.length;
  return Buffer.compare(a, b);
}

function encodeMap(entries: Array<[CborEncodable, CborEncodable]>): Buffer {
  const encoded = entries.map(([k, v]) => [encodeCbor(k), encodeCbor(v)] as const);
  encoded.sort((x, y) => compareKeys(x[0], y[0]));
  for (let i = 1; i < encoded.length; i++) {
    if (Buffer.compare(encoded[i - 1]![0], encoded[i]![0]) === 0) throw new CborError('duplicate map key');
  }
  return Buffer.concat([head(5, encoded.length), ...encoded.flat()]);
}

export function encodeCbor(value: CborEncodable): Buffer {
  if (value === false) return Buffer.from([0xf4]);
  if (value === true) return Buffer.from([0xf5]);
  if (value === null) return Buffer.from([0xf6]);
  if (value === undefined) return Buffer.from([0xf7]);
  if (typeof value === 'bigint') return encodeInteger(value);
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return encodeInteger(value);
    const b = Buffer.alloc(9);
    b[0] = 0xfb;
    b.writeDoubleBE(value, 1);
    return b;
  }
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  if (value instanceof CborTag) return Buffer.concat([head(6, value.tag), encodeCbor(value.value)]);
  if (Array.isArray(value)) {
    return Buffer.concat([head(4, value.length), ...value.map((v: CborEncodable) => encodeCbor(v))]);
  }
  if (value instanceof Map) return encodeMap([...value.entries()]);
  return encodeMap(Object.entries(value as { readonly [key: string]: CborEncodable }));
}
