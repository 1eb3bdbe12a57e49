// Test-only: ASN.1 schema classes for the attestation structures @peculiar/asn1-x509 does not define (the
// Android KeyDescription, Apple's nonce), declared with @peculiar/asn1-schema and encoded by it. The
// library's decorators are applied as plain calls: the project compiles without experimentalDecorators.

import {
  AsnConvert,
  AsnIntegerBigIntConverter,
  AsnIntegerConverter,
  AsnProp,
  AsnType,
  AsnTypeTypes,
} from '@peculiar/asn1-schema';

type PropOptions = Parameters<typeof AsnProp>[0];

/** Declares `target` as a SEQUENCE of the given fields, in the given order (the order DER writes them). */
export function defineSequence<T>(
  target: new () => T,
  fields: readonly (readonly [keyof T & string, PropOptions])[],
): void {
  for (const [key, options] of fields) AsnProp(options)(target.prototype as object, key);
  AsnType({ type: AsnTypeTypes.Sequence })(target);
}

/** The DER encoding of a schema object (or of an asn1js value a converter made). */
export function derOf(value: unknown): Buffer {
  return Buffer.from(AsnConvert.serialize(value));
}

/**
 * An INTEGER, minimal two's complement. Safe integers go through the library's number converter: its bigint
 * one writes -2^(8k-1) (e.g. -128) with a redundant 0xff octet, which is not DER.
 */
export function integerDer(value: number | bigint): Buffer {
  const n = Number(value);
  return derOf(
    Number.isSafeInteger(n) && BigInt(n) === BigInt(value)
      ? AsnIntegerConverter.toASN(n)
      : AsnIntegerBigIntConverter.toASN(BigInt(value)),
  );
}
