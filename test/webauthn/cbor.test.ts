// The strict CBOR decoder (RFC 8949) and the CTAP2 canonical encoder.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CborError, CborTag, decodeCbor, decodeCborPrefix } from '../../src/webauthn/cbor.js';
import { encodeCbor } from '../../src/webauthn/cbor-encode.js';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const rejects = (input: string | Buffer, pattern: RegExp) =>
  assert.throws(
    () => decodeCbor(typeof input === 'string' ? hex(input) : input),
    (err: unknown) => err instanceof CborError && pattern.test(err.message),
  );

describe('CBOR decoder (RFC 8949 Appendix A examples)', () => {
  it('decodes unsigned and negative integers, including beyond 2^53 as bigint', () => {
    assert.equal(decodeCbor(hex('00')), 0);
    assert.equal(decodeCbor(hex('17')), 23);
    assert.equal(decodeCbor(hex('1818')), 24);
    assert.equal(decodeCbor(hex('190100')), 256);
    assert.equal(decodeCbor(hex('1a000f4240')), 1000000);
    assert.equal(decodeCbor(hex('1b000000e8d4a51000')), 1000000000000);
    assert.equal(decodeCbor(hex('1b001fffffffffffff')), Number.MAX_SAFE_INTEGER);
    assert.equal(decodeCbor(hex('1b0020000000000000')), 2n ** 53n);
    assert.equal(decodeCbor(hex('1bffffffffffffffff')), 18446744073709551615n);
    assert.equal(decodeCbor(hex('20')), -1);
    assert.equal(decodeCbor(hex('3863')), -100);
    assert.equal(decodeCbor(hex('3903e7')), -1000);
    assert.equal(decodeCbor(hex('3b001ffffffffffffe')), -Number.MAX_SAFE_INTEGER);
    assert.equal(decodeCbor(hex('3b001fffffffffffff')), -(2n ** 53n));
    assert.equal(decodeCbor(hex('3bffffffffffffffff')), -18446744073709551616n);
  });

  it('decodes byte strings, text strings, arrays, maps, simple values and floats', () => {
    assert.deepEqual(decodeCbor(hex('4401020304')), Buffer.from([1, 2, 3, 4]));
    assert.equal(decodeCbor(hex('6449455446')), 'IETF');
    assert.equal(decodeCbor(hex('62c3bc')), 'ü');
    assert.deepEqual(decodeCbor(hex('83010203')), [1, 2, 3]);
    assert.deepEqual(decodeCbor(hex('8301820203820405')), [1, [2, 3], [4, 5]]);
    assert.deepEqual(
      decodeCbor(hex('a201020304')),
      new Map([
        [1, 2],
        [3, 4],
      ]),
    );
    assert.deepEqual(
      decodeCbor(hex('a26161016162820203')),
      new Map<unknown, unknown>([
        ['a', 1],
        ['b', [2, 3]],
      ]),
    );
    assert.equal(decodeCbor(hex('f4')), false);
    assert.equal(decodeCbor(hex('f5')), true);
    assert.equal(decodeCbor(hex('f6')), null);
    assert.equal(decodeCbor(hex('f7')), undefined);
    assert.equal(decodeCbor(hex('f93c00')), 1);
    assert.equal(decodeCbor(hex('f90001')), 5.960464477539063e-8);
    assert.equal(decodeCbor(hex('f97c00')), Infinity);
    assert.equal(decodeCbor(hex('fa47c35000')), 100000);
    assert.equal(decodeCbor(hex('fb3ff199999999999a')), 1.1);
  });

  it('keeps tags as {tag, value}', () => {
    const v = decodeCbor(hex('c11a514b67b0'));
    assert.ok(v instanceof CborTag);
    assert.equal(v.tag, 1);
    assert.equal(v.value, 1363896240);
  });

  it('decodeCborPrefix returns the value and the offset after it (COSE key followed by extensions)', () => {
    const bytes = Buffer.concat([hex('ff'), encodeCbor(new Map([[1, 2]])), encodeCbor(new Map([['ext', true]]))]);
    const first = decodeCborPrefix(bytes, 1);
    assert.deepEqual(first.value, new Map([[1, 2]]));
    assert.equal(first.end, 4);
    const second = decodeCborPrefix(bytes, first.end);
    assert.deepEqual(second.value, new Map([['ext', true]]));
    assert.equal(second.end, bytes.length);
  });
});

describe('CBOR decoder: hostile and non-WebAuthn input is refused with CborError', () => {
  it('refuses empty and truncated input', () => {
    rejects('', /truncated/);
    rejects('19', /truncated/);
    rejects('1b00000000', /truncated/);
    rejects('83 01 02', /declared length|truncated/);
    rejects('a2 01 02 03', /declared length|truncated/);
    rejects('fa 00 00', /truncated/);
  });

  it('refuses declared lengths larger than the input (no allocation of 4 GiB)', () => {
    rejects('5a ffffffff 00', /declared length/);
    rejects('7b 7fffffffffffffff', /declared length/);
    rejects('9b ffffffffffffffff', /declared length/);
    rejects('ba 7fffffff', /declared length/);
  });

  it('refuses indefinite lengths, reserved additional information and stray breaks', () => {
    rejects('5f 41 01 ff', /indefinite/);
    rejects('9f 01 ff', /indefinite/);
    rejects('bf ff', /indefinite/);
    rejects('1c', /reserved/);
    rejects('ff', /break/);
  });

  it('refuses unassigned simple values', () => {
    rejects('f0', /simple value/);
    rejects('f8 20', /simple value/);
  });

  it('refuses text that is not valid UTF-8', () => {
    rejects('62 c3 28', /UTF-8/);
    rejects('61 ff', /UTF-8/);
  });

  it('refuses duplicate map keys (by value, including differently encoded equal integers)', () => {
    rejects('a2 01 02 01 03', /duplicate/);
    rejects('a2 61 61 01 61 61 02', /duplicate/);
    rejects('a2 01 02 18 01 03', /duplicate/);
    rejects('a2 41 00 01 41 00 02', /duplicate/);
  });

  it('refuses nesting deeper than 16 levels without overflowing the stack', () => {
    assert.doesNotThrow(() => decodeCbor(Buffer.concat([Buffer.alloc(15, 0x81), hex('00')])));
    rejects(Buffer.concat([Buffer.alloc(17, 0x81), hex('00')]), /nesting/);
    rejects(Buffer.alloc(100_000, 0x81), /nesting/);
    rejects(Buffer.alloc(100_000, 0xc1), /nesting/);
  });

  it('refuses more items than the item limit', () => {
    const many = Buffer.concat([hex('9a 00 00 ff ff'), Buffer.alloc(0xffff, 0)]);
    rejects(many, /items/);
  });

  it('refuses trailing bytes in decodeCbor and an offset outside the input in decodeCborPrefix', () => {
    rejects('01 02', /trailing/);
    assert.throws(() => decodeCborPrefix(hex('01'), 2), CborError);
    assert.throws(() => decodeCborPrefix(hex('01'), -1), CborError);
  });
});

describe('CBOR encoder (CTAP2 canonical)', () => {
  it('uses the smallest heads', () => {
    assert.equal(encodeCbor(23).toString('hex'), '17');
    assert.equal(encodeCbor(24).toString('hex'), '1818');
    assert.equal(encodeCbor(256).toString('hex'), '190100');
    assert.equal(encodeCbor(-1).toString('hex'), '20');
    assert.equal(encodeCbor(-257).toString('hex'), '390100');
    assert.equal(encodeCbor(2n ** 64n - 1n).toString('hex'), '1bffffffffffffffff');
  });

  it('sorts map keys by major type, then length, then bytes', () => {
    const m = new Map<unknown, unknown>([
      ['b', 1],
      [-1, 2],
      ['aa', 3],
      [3, 4],
      [1, 5],
      ['a', 6],
      [-2, 7],
    ]);
    const decoded = decodeCbor(encodeCbor(m as never)) as Map<unknown, unknown>;
    assert.deepEqual([...decoded.keys()], [1, 3, -1, -2, 'a', 'b', 'aa']);
  });

  it('encodes plain objects as text-keyed maps and round-trips every type', () => {
    const value = new Map<unknown, unknown>([
      ['fmt', 'packed'],
      ['bytes', Buffer.from([1, 2])],
      ['arr', [1, -2, 'x', null, true, false]],
      ['tag', new CborTag(24, Buffer.from([0]))],
      ['big', 2n ** 60n],
      ['float', 1.5],
    ]);
    assert.deepEqual(decodeCbor(encodeCbor(value as never)), value);
    assert.deepEqual(decodeCbor(encodeCbor({ a: 1 })), new Map([['a', 1]]));
  });
});
