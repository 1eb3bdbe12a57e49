// Strict CBOR (RFC 8949) for WebAuthn: the decoder every parser uses, and a CTAP2-canonical encoder.
// The decoder accepts only what WebAuthn authenticators produce (definite lengths, well-formed UTF-8,
// unique map keys) and is bounded so that hostile input cannot exhaust memory or the stack:
// nesting depth, number of items, and declared lengths are checked against the bytes actually present.

import type { CborValue } from './types.js';

export class CborError extends Error {
  override readonly name = 'CborError';
}

/** A tagged value (major type 6); the tag number and the item it wraps. */
export class CborTag {
  constructor(
    readonly tag: number,
    readonly value: CborValue,
  ) {}
}

export interface CborLimits {
  /** Nesting of arrays, maps and tags. */
  readonly maxDepth: number;
  /** Data items in one decode call (every element, key and value counts). */
  readonly maxItems: number;
  /**
   * Refuse floating-point numbers (major type 7, additional info 25-27). A decoded 1.0 is the JS number
   * 1, indistinguishable from the integer afterwards, so structures that allow no floats (COSE keys) must
   * refuse them while decoding.
   */
  readonly refuseFloats?: boolean;
  /**
   * Refuse a head whose argument is not in its shortest form (RFC 8949 §4.2.1 "preferred serialization",
   * CTAP2 canonical CBOR): 10 written as 0x18 0x0a, or an array length in two bytes that fits in one. A
   * structure with one meaning must have one encoding (COSE keys: the stored bytes are what is compared).
   */
  readonly refuseNonMinimal?: boolean;
}

export const DEFAULT_CBOR_LIMITS: CborLimits = { maxDepth: 16, maxItems: 20_000 };

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

class Reader {
  pos: number;
  items = 0;
  constructor(
    readonly bytes: Buffer,
    offset: number,
    readonly limits: CborLimits,
  ) {
    this.pos = offset;
  }

  need(count: number): void {
    if (count > this.bytes.length - this.pos) throw new CborError(`truncated input at offset ${this.pos}`);
  }

  byte(): number {
    this.need(1);
    return this.bytes[this.pos++]!;
  }

  /** Reads the argument of a head: a number, or a bigint when it exceeds 2^53 - 1. */
  argument(info: number): number | bigint {
    if (info < 24) return info;
    const at = this.pos - 1;
    if (info === 24) return this.minimal(this.byte(), 24, at);
    if (info === 25) {
      this.need(2);
      const v = this.bytes.readUInt16BE(this.pos);
      this.pos += 2;
      return this.minimal(v, 0x100, at);
    }
    if (info === 26) {
      this.need(4);
      const v = this.bytes.readUInt32BE(this.pos);
      this.pos += 4;
      return this.minimal(v, 0x10000, at);
    }
    if (info === 27) {
      this.need(8);
      const v = this.bytes.readBigUInt64BE(this.pos);
      this.pos += 8;
      this.minimal(v, 0x100000000n, at);
      return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
    }
    if (info === 31) throw new CborError(`indefinite length at offset ${this.pos - 1} is not allowed`);
    throw new CborError(`reserved additional information ${info} at offset ${this.pos - 1}`);
  }

  /** `value`, refused when a shorter head could hold it (below `floor`) and the limits ask for the shortest. */
  minimal<T extends number | bigint>(value: T, floor: number | bigint, at: number): T {
    if (this.limits.refuseNonMinimal && value < floor)
      throw new CborError(`non-minimal encoding of ${value} in the head at offset ${at}`);
    return value;
  }

  /** A length (string, array, map): must be a number no larger than the bytes that remain. */
  length(info: number, minBytesPerUnit: number): number {
    const n = this.argument(info);
    if (typeof n === 'bigint' || n * minBytesPerUnit > this.bytes.length - this.pos) {
      throw new CborError(`declared length ${n} exceeds the remaining input at offset ${this.pos}`);
    }
    return n;
  }

  item(depth: number): CborValue {
    if (++this.items > this.limits.maxItems) throw new CborError(`more than ${this.limits.maxItems} items`);
    const head = this.byte();
    const major = head >> 5;
    const info = head & 0x1f;
    switch (major) {
      case 0:
        return this.argument(info);
      case 1: {
        const n = this.argument(info);
        if (typeof n === 'bigint') return -1n - n;
        // -1 - n stays exact while n < 2^53 - 1; beyond that the result needs a bigint.
        return n < Number.MAX_SAFE_INTEGER ? -1 - n : -1n - BigInt(n);
      }
      case 2: {
        const len = this.length(info, 1);
        const out = Buffer.from(this.bytes.subarray(this.pos, this.pos + len));
        this.pos += len;
        return out;
      }
      case 3: {
        const len = this.length(info, 1);
        const start = this.pos;
        this.pos += len;
        try {
          return utf8.decode(this.bytes.subarray(start, start + len));
        } catch {
          throw new CborError(`text string at offset ${start} is not valid UTF-8`);
        }
      }
      case 4: {
        this.enter(depth);
        const len = this.length(info, 1);
        const out: CborValue[] = [];
        for (let i = 0; i < len; i++) out.push(this.item(depth + 1));
        return out;
      }
      case 5: {
        this.enter(depth);
        const len = this.length(info, 2);
        const out = new Map<CborValue, CborValue>();
        const seen = new Set<string>();
        for (let i = 0; i < len; i++) {
          const keyStart = this.pos;
          const key = this.item(depth + 1);
          const identity = keyIdentity(key, this.bytes.subarray(keyStart, this.pos));
          if (seen.has(identity)) throw new CborError(`duplicate map key at offset ${keyStart}`);
          seen.add(identity);
          out.set(key, this.item(depth + 1));
        }
        return out;
      }
      case 6: {
        this.enter(depth);
        const tag = this.argument(info);
        if (typeof tag === 'bigint') throw new CborError(`tag number too large at offset ${this.pos}`);
        return new CborTag(tag, this.item(depth + 1));
      }
      default:
        return this.simple(info);
    }
  }

  enter(depth: number): void {
    if (depth >= this.limits.maxDepth) throw new CborError(`nesting deeper than ${this.limits.maxDepth}`);
  }

  simple(info: number): CborValue {
    if (info >= 25 && info <= 27 && this.limits.refuseFloats)
      throw new CborError(
        `floating-point number at offset ${this.pos - 1}, where only integers, text and bytes may be`,
      );
    switch (info) {
      case 20:
        return false;
      case 21:
        return true;
      case 22:
        return null;
      case 23:
        return undefined;
      case 25: {
        this.need(2);
        const v = halfToNumber(this.bytes.readUInt16BE(this.pos));
        this.pos += 2;
        return v;
      }
      case 26: {
        this.need(4);
        const v = this.bytes.readFloatBE(this.pos);
        this.pos += 4;
        return v;
      }
      case 27: {
        this.need(8);
        const v = this.bytes.readDoubleBE(this.pos);
        this.pos += 8;
        return v;
      }
      case 31:
        throw new CborError(`unexpected "break" at offset ${this.pos - 1}`);
      default:
        // Unassigned simple values have no meaning in WebAuthn; refusing them keeps the value model small.
        throw new CborError(`unsupported simple value ${info} at offset ${this.pos - 1}`);
    }
  }
}

/** Map keys are unique by value: numbers, text and byte strings by content, anything else by its encoding. */
function keyIdentity(key: CborValue, encoded: Uint8Array): string {
  if (typeof key === 'number' || typeof key === 'bigint') return `i:${key}`;
  if (typeof key === 'string') return `t:${key}`;
  if (Buffer.isBuffer(key)) return `b:${key.toString('hex')}`;
  return `r:${Buffer.from(encoded).toString('hex')}`;
}

function halfToNumber(half: number): number {
  const exp = (half >> 10) & 0x1f;
  const mant = half & 0x3ff;
  const sign = half & 0x8000 ? -1 : 1;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 31) return mant === 0 ? sign * Infinity : NaN;
  return sign * (mant + 1024) * 2 ** (exp - 25);
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Decodes exactly one data item that fills the whole input; trailing bytes are an error. */
export function decodeCbor(bytes: Uint8Array, limits: CborLimits = DEFAULT_CBOR_LIMITS): CborValue {
  const { value, end } = decodeCborPrefix(bytes, 0, limits);
  if (end !== bytes.length) throw new CborError(`${bytes.length - end} trailing bytes after the data item`);
  return value;
}

/** Decodes one data item starting at `offset`; returns it and the offset just after it. */
export function decodeCborPrefix(
  bytes: Uint8Array,
  offset: number,
  limits: CborLimits = DEFAULT_CBOR_LIMITS,
): { value: CborValue; end: number } {
  const buf = toBuffer(bytes);
  if (!Number.isInteger(offset) || offset < 0 || offset > buf.length) throw new CborError('offset outside the input');
  const reader = new Reader(buf, offset, limits);
  const value = reader.item(0);
  return { value, end: reader.pos };
}
