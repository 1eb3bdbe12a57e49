// What a parsed CRL is (the facts crl.ts reads from a file and crl-checks.ts judges), the largest file
// accepted, the signature algorithms a CRL may use, the serial-number key both compare by, and CrlError,
// which callers turn into their own error name. crl.ts re-exports it all.

export class CrlError extends Error {
  override readonly name = 'CrlError';
}

/** A CRL file far larger than this is not a CA's CRL (the GlobalSign ones of the MDS chain are a few kB). */
export const MAX_CRL_BYTES = 32 * 1024 * 1024;

/** The signature algorithms a CRL may be signed with (the ones certificates of the MDS chain use). */
export interface SignatureAlgorithm {
  readonly name: string;
  readonly hash: string | null;
  readonly kind: 'ecdsa' | 'rsa' | 'eddsa';
}

export const SIGNATURE_ALGORITHMS: Record<string, SignatureAlgorithm> = {
  '1.2.840.10045.4.3.2': { name: 'ecdsa-with-SHA256', hash: 'sha256', kind: 'ecdsa' },
  '1.2.840.10045.4.3.3': { name: 'ecdsa-with-SHA384', hash: 'sha384', kind: 'ecdsa' },
  '1.2.840.10045.4.3.4': { name: 'ecdsa-with-SHA512', hash: 'sha512', kind: 'ecdsa' },
  '1.2.840.113549.1.1.11': { name: 'sha256WithRSAEncryption', hash: 'sha256', kind: 'rsa' },
  '1.2.840.113549.1.1.12': { name: 'sha384WithRSAEncryption', hash: 'sha384', kind: 'rsa' },
  '1.2.840.113549.1.1.13': { name: 'sha512WithRSAEncryption', hash: 'sha512', kind: 'rsa' },
  '1.3.101.112': { name: 'Ed25519', hash: null, kind: 'eddsa' },
};

/** Which certificates of its issuer a CRL covers (its issuingDistributionPoint, RFC 5280 §5.2.5). */
export type CrlScope = 'all' | 'end-entity' | 'ca';

export interface RevokedCertificate {
  /** The serial number as upper-case hex, leading zero octets removed (see serialKey). */
  readonly serial: string;
  readonly revocationDate: Date;
}

export interface Crl {
  /** Where the CRL came from (file name, PEM block number), for messages. */
  readonly label: string;
  readonly der: Buffer;
  readonly version: 1 | 2;
  /** The issuer Name exactly as encoded (DER). */
  readonly issuer: Buffer;
  /** The issuer Name as text (C=US, O=…, CN=…), for messages. */
  readonly issuerText: string;
  readonly thisUpdate: Date;
  /** Absent in the CRL = null (RFC 5280 requires it; such a CRL cannot be known to be current). */
  readonly nextUpdate: Date | null;
  readonly crlNumber: bigint | null;
  readonly scope: CrlScope;
  /** The listed certificates, by serial key. Entry extensions (reason codes, …) are not read. */
  readonly revoked: ReadonlyMap<string, RevokedCertificate>;
  readonly signatureAlgorithm: string;
  /** The signed part (tbsCertList, DER) and the signature over it. */
  readonly tbs: Buffer;
  readonly signature: Buffer;
}

/**
 * A serial number as a comparison key: upper-case hex of the INTEGER's content octets without leading
 * zero octets, so the DER sign octet (00 before a high bit) and redundant zeros do not matter.
 */
export function serialKey(content: Uint8Array): string {
  let start = 0;
  while (start < content.length - 1 && content[start] === 0) start++;
  return Buffer.from(content.subarray(start)).toString('hex').toUpperCase();
}
