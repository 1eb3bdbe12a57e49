// The TPM 2.0 structures a "tpm" attestation statement carries (TPM 2.0 Part 2): pubArea (TPMT_PUBLIC) and
// certInfo (TPMS_ATTEST), read bounds-checked, and the constants the statement's checks compare them with.
import { FidoError, type ErrorName } from '../../errors/catalogue.js';

export const TPM_GENERATED_VALUE = 0xff544347;
export const TPM_ST_ATTEST_CERTIFY = 0x8017;
const TPM_ALG_RSA = 0x0001;
const TPM_ALG_ECC = 0x0023;
const TPM_ALG_NULL = 0x0010;

/** TPM_ALG_ID of the hash algorithms a name may use (TPM 2.0 Part 2 §6.3). */
export const NAME_HASHES: Record<number, string> = {
  0x0004: 'sha1',
  0x000b: 'sha256',
  0x000c: 'sha384',
  0x000d: 'sha512',
};
/** TPM_ECC_CURVE (Part 2 §6.4) → JWK curve name. */
export const TPM_CURVES: Record<number, string> = { 0x0003: 'P-256', 0x0004: 'P-384', 0x0005: 'P-521' };

/** A failure of a tpm statement, its detail prefixed with the format. */
export function tpmError(code: ErrorName, detail: string): FidoError {
  return new FidoError(code, `tpm: ${detail}`);
}

/** A bounds-checked big-endian reader over TPM marshalled structures. */
class TpmReader {
  private pos = 0;
  constructor(
    private readonly buf: Buffer,
    private readonly what: string,
  ) {}

  private take(n: number): Buffer {
    if (this.pos + n > this.buf.length) throw tpmError('TPM_ATTESTATION_DATA_INVALID', `${this.what} is truncated`);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  u16(): number {
    return this.take(2).readUInt16BE(0);
  }
  u32(): number {
    return this.take(4).readUInt32BE(0);
  }
  bytes(n: number): Buffer {
    return this.take(n);
  }
  /** A TPM2B_*: UINT16 size, then that many bytes. */
  sized(): Buffer {
    return this.take(this.u16());
  }
  end(): void {
    if (this.pos !== this.buf.length) throw tpmError('TPM_ATTESTATION_DATA_INVALID', `${this.what} has trailing bytes`);
  }
}

export type PubArea =
  | { readonly type: 'rsa'; readonly nameAlg: number; readonly exponent: number; readonly modulus: Buffer }
  | { readonly type: 'ecc'; readonly nameAlg: number; readonly curve: number; readonly x: Buffer; readonly y: Buffer };

/** TPMT_PUBLIC (Part 2 §12.2.4) for RSA and ECC keys. */
export function parsePubArea(buf: Buffer): PubArea {
  const r = new TpmReader(buf, 'pubArea');
  const type = r.u16();
  const nameAlg = r.u16();
  r.u32(); // objectAttributes
  r.sized(); // authPolicy
  // TPMT_SYM_DEF_OBJECT: keyBits and mode follow only for a real symmetric algorithm.
  const skipSchemeDetail = () => {
    if (r.u16() !== TPM_ALG_NULL) r.u16();
  };
  if (type === TPM_ALG_RSA) {
    if (r.u16() !== TPM_ALG_NULL) {
      r.u16();
      r.u16();
    } // symmetric
    skipSchemeDetail(); // scheme (+ hashAlg)
    r.u16(); // keyBits
    const exponent = r.u32();
    const modulus = r.sized();
    r.end();
    return { type: 'rsa', nameAlg, exponent: exponent === 0 ? 65537 : exponent, modulus };
  }
  if (type === TPM_ALG_ECC) {
    if (r.u16() !== TPM_ALG_NULL) {
      r.u16();
      r.u16();
    } // symmetric
    skipSchemeDetail(); // scheme (+ hashAlg)
    const curve = r.u16();
    skipSchemeDetail(); // kdf (+ hashAlg)
    const x = r.sized();
    const y = r.sized();
    r.end();
    return { type: 'ecc', nameAlg, curve, x, y };
  }
  throw tpmError('TPM_ATTESTATION_DATA_INVALID', `pubArea type 0x${type.toString(16)} is neither RSA nor ECC`);
}

export interface CertInfo {
  readonly magic: number;
  readonly type: number;
  readonly extraData: Buffer;
  readonly attestedName: Buffer;
}

/** TPMS_ATTEST (Part 2 §10.12.12) of a TPM2_Certify: the parts §8.3 checks. */
export function parseCertInfo(buf: Buffer): CertInfo {
  const r = new TpmReader(buf, 'certInfo');
  const magic = r.u32();
  const type = r.u16();
  r.sized(); // qualifiedSigner
  const extraData = r.sized();
  r.bytes(17); // clockInfo: clock u64, resetCount u32, restartCount u32, safe u8
  r.bytes(8); // firmwareVersion
  const attestedName = r.sized(); // TPMS_CERTIFY_INFO.name
  r.sized(); // TPMS_CERTIFY_INFO.qualifiedName
  r.end();
  return { magic, type, extraData, attestedName };
}
