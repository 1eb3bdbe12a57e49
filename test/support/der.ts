// Test-only, minimal DER writer for what @peculiar/asn1-schema will not write: values whose content is
// invalid (a UTCTime without seconds or with an offset, a GeneralizedTime with a fraction), which the library
// refuses to encode, and SEQUENCEs put back together from a valid encoding's elements after one was swapped.
// Everything valid is built with the library's schema classes (x509-builder.ts, asn1-schema.ts).

function lengthOctets(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** One TLV with a one-octet identifier (a low tag number: 0x17 UTCTime, 0xa0 [0] constructed, …). */
export function tlv(identifier: number, content: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([identifier]), lengthOctets(content.length), content]);
}

export function sequence(items: readonly Uint8Array[]): Buffer {
  return tlv(0x30, Buffer.concat(items));
}
