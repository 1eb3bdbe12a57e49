// "tpm" attestation (WebAuthn L3 §8.3): a TPM 2.0 certifies the credential key (pubArea) with its
// attestation identity key; certInfo (TPMS_ATTEST) carries the hash of the signed data and the name of
// pubArea, and is signed with the AIK, whose certificate must meet §8.3.1. Structures: TPM 2.0 Part 2.

import { createHash, type X509Certificate } from 'node:crypto';
import { FidoError, type ErrorName } from '../../errors.js';
import { Asn1Error, children, decodeOctetString, decodeOid, isContext, readDer, sequenceOf } from '../asn1.js';
import { certificateParts, decodeName } from '../x509.js';
import { certificatePublicKey, claimsCa } from '../certificates.js';
import { coseAlgorithm, keyMatchesAlgorithm, verifySignature } from '../cose.js';
import { readAlg, readSig, readX5c, signedData } from './fields.js';
import type { AttestationFormat, AttestationInput, AttestationOutcome } from './types.js';
import type { CborValue } from '../types.js';

const TPM_GENERATED_VALUE = 0xff544347;
const TPM_ST_ATTEST_CERTIFY = 0x8017;
const TPM_ALG_RSA = 0x0001;
const TPM_ALG_ECC = 0x0023;
const TPM_ALG_NULL = 0x0010;

/** TPM_ALG_ID of the hash algorithms a name may use (TPM 2.0 Part 2 §6.3). */
const NAME_HASHES: Record<number, string> = { 0x0004: 'sha1', 0x000b: 'sha256', 0x000c: 'sha384', 0x000d: 'sha512' };
/** TPM_ECC_CURVE (Part 2 §6.4) → JWK curve name. */
const TPM_CURVES: Record<number, string> = { 0x0003: 'P-256', 0x0004: 'P-384', 0x0005: 'P-521' };

/** tcg-kp-AIKCertificate (TCG EK Credential Profile). */
const OID_TCG_KP_AIK_CERTIFICATE = '2.23.133.8.3';
const OID_TPM_MANUFACTURER = '2.23.133.2.1';
const OID_TPM_MODEL = '2.23.133.2.2';
const OID_TPM_VERSION = '2.23.133.2.3';
const OID_FIDO_GEN_CE_AAGUID = '1.3.6.1.4.1.45724.1.1.4';

/**
 * TPM vendor IDs of the TCG vendor registry (the ASCII of each short name), plus the FIDO Alliance's
 * conformance-testing ID. The AIK certificate's tpmManufacturer must be one of them.
 */
const TPM_MANUFACTURERS: ReadonlySet<string> = new Set([
  '414D4400', // AMD
  '414E5400', // Ant Group
  '41544D4C', // Atmel
  '4252434D', // Broadcom
  '4353434F', // Cisco
  '464C5953', // Flyslice Technologies
  '524F4343', // Fuzhou Rockchip
  '474F4F47', // Google
  '48504900', // HPI
  '48504500', // HPE
  '48495349', // Huawei
  '49424D00', // IBM
  '49465800', // Infineon
  '494E5443', // Intel
  '4C454E00', // Lenovo
  '4D534654', // Microsoft
  '4E534D20', // National Semiconductor
  '4E545A00', // Nationz
  '4E534700', // NSING
  '4E544300', // Nuvoton Technology
  '51434F4D', // Qualcomm
  '534D534E', // Samsung
  '53454345', // SecEdge
  '534E5300', // Sinosun
  '534D5343', // SMSC
  '53544D20', // STMicroelectronics
  '54584E00', // Texas Instruments
  '57454300', // Winbond
  '5345414C', // Wisekey
  'FFFFF1D0', // FIDO Alliance (conformance testing)
]);

function fail(code: ErrorName, detail: string): FidoError {
  return new FidoError(code, `tpm: ${detail}`);
}

/** A bounds-checked big-endian reader over TPM marshalled structures. */
class TpmReader {
  private pos = 0;
  constructor(private readonly buf: Buffer, private readonly what: string) {}

  private take(n: number): Buffer {
    if (this.pos + n > this.buf.length) throw fail('TPM_ATTESTATION_DATA_INVALID', `${this.what} is truncated`);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  u16(): number { return this.take(2).readUInt16BE(0); }
  u32(): number { return this.take(4).readUInt32BE(0); }
  bytes(n: number): Buffer { return this.take(n); }
  /** A TPM2B_*: UINT16 size, then that many bytes. */
  sized(): Buffer { return this.take(this.u16()); }
  end(): void {
    if (this.pos !== this.buf.length) throw fail('TPM_ATTESTATION_DATA_INVALID', `${this.what} has trailing bytes`);
  }
}

type PubArea =
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
  const skipSchemeDetail = () => { if (r.u16() !== TPM_ALG_NULL) r.u16(); };
  if (type === TPM_ALG_RSA) {
    if (r.u16() !== TPM_ALG_NULL) { r.u16(); r.u16(); } // symmetric
    skipSchemeDetail(); // scheme (+ hashAlg)
    r.u16(); // keyBits
    const exponent = r.u32();
    const modulus = r.sized();
    r.end();
    return { type: 'rsa', nameAlg, exponent: exponent === 0 ? 65537 : exponent, modulus };
  }
  if (type === TPM_ALG_ECC) {
    if (r.u16() !== TPM_ALG_NULL) { r.u16(); r.u16(); } // symmetric
    skipSchemeDetail(); // scheme (+ hashAlg)
    const curve = r.u16();
    skipSchemeDetail(); // kdf (+ hashAlg)
    const x = r.sized();
    const y = r.sized();
    r.end();
    return { type: 'ecc', nameAlg, curve, x, y };
  }
  throw fail('TPM_ATTESTATION_DATA_INVALID', `pubArea type 0x${type.toString(16)} is neither RSA nor ECC`);
}

interface CertInfo {
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

function byteString(attStmt: Map<CborValue, CborValue>, key: string): Buffer {
  const value = attStmt.get(key);
  if (!Buffer.isBuffer(value) || value.length === 0) throw new FidoError('INVALID_ATTESTATION_FORMAT', `tpm: ${key} must be a non-empty byte string`);
  return value;
}

function unsigned(bytes: Buffer): Buffer {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  return bytes.subarray(i);
}

/** §8.3 step 3: the key pubArea describes is the credential public key. */
function checkPubAreaKey(pubArea: PubArea, input: AttestationInput): void {
  const jwk = input.credentialKey.keyObject.export({ format: 'jwk' });
  const b = (s: string | undefined) => Buffer.from(s ?? '', 'base64url');
  const mismatch = (what: string) => fail('TPM_ATTESTATION_CERTINFO_PUBAREA_UNIQUE_NOT_MATCH_TO_CREDENTIAL_PUBKEY', what);
  if (pubArea.type === 'rsa') {
    if (jwk.kty !== 'RSA') throw mismatch('pubArea holds an RSA key, the credential key is not RSA');
    if (!unsigned(pubArea.modulus).equals(unsigned(b(jwk.n)))) throw mismatch('pubArea.unique is not the credential key modulus');
    if (BigInt(pubArea.exponent) !== BigInt(`0x${b(jwk.e).toString('hex') || '0'}`)) throw mismatch('pubArea exponent differs from the credential key');
    return;
  }
  if (jwk.kty !== 'EC') throw mismatch('pubArea holds an ECC key, the credential key is not EC');
  if (TPM_CURVES[pubArea.curve] !== jwk.crv) throw mismatch('pubArea curve differs from the credential key curve');
  if (!unsigned(pubArea.x).equals(unsigned(b(jwk.x))) || !unsigned(pubArea.y).equals(unsigned(b(jwk.y)))) {
    throw mismatch('pubArea.unique is not the credential key point');
  }
}

/** §8.3 step 5: certInfo is a TPM-generated certification of pubArea over the signed data. */
function checkCertInfo(certInfo: CertInfo, pubArea: PubArea, pubAreaBytes: Buffer, alg: number, input: AttestationInput): void {
  if (certInfo.magic !== TPM_GENERATED_VALUE) throw fail('TPM_ATTESTATION_CERTINFO_MAGIC_NOT_MATCHED', `magic is 0x${certInfo.magic.toString(16)}`);
  if (certInfo.type !== TPM_ST_ATTEST_CERTIFY) throw fail('TPM_ATTESTATION_CERTINFO_TYPE_NOT_MATCHED', `type is 0x${certInfo.type.toString(16)}`);
  const entry = coseAlgorithm(alg);
  const hash = entry && 'hash' in entry ? entry.hash : undefined;
  if (!hash) throw fail('TPM_ATTESTATION_INVALID_HASH_ALGORITHM', `alg ${alg} has no hash for extraData`);
  const expected = createHash(hash).update(signedData(input.authData.raw, input.clientDataHash)).digest();
  if (!certInfo.extraData.equals(expected)) throw fail('TPM_ATTESTATION_CERTINFO_EXTRADATA_NOT_MATCHED', 'extraData is not the hash of authenticatorData ‖ clientDataHash');
  // TPM name = nameAlg (2 bytes) ‖ H_nameAlg(pubArea), with pubArea's own nameAlg (§8.3: "the name
  // of pubArea, computed using the procedure specified in [TPMv2-Part1] section 16 using the nameAlg
  // in the pubArea"). A name hashed with another algorithm is not pubArea's name, whatever it hashes.
  if (certInfo.attestedName.length < 2) throw fail('TPM_ATTESTATION_DATA_INVALID', 'attested.name is too short');
  const nameAlg = certInfo.attestedName.readUInt16BE(0);
  const nameHash = NAME_HASHES[nameAlg];
  if (!nameHash) throw fail('TPM_ATTESTATION_INVALID_HASH_ALGORITHM', `attested.name uses hash algorithm 0x${nameAlg.toString(16)}`);
  if (!NAME_HASHES[pubArea.nameAlg]) throw fail('TPM_ATTESTATION_INVALID_HASH_ALGORITHM', `pubArea.nameAlg is 0x${pubArea.nameAlg.toString(16)}`);
  if (nameAlg !== pubArea.nameAlg) {
    throw fail('TPM_ATTESTATION_CERTINFO_PUBAREA_HASH_NOT_MATCHED', `attested.name uses hash algorithm 0x${nameAlg.toString(16)}, pubArea.nameAlg is 0x${pubArea.nameAlg.toString(16)}`);
  }
  const name = Buffer.concat([certInfo.attestedName.subarray(0, 2), createHash(nameHash).update(pubAreaBytes).digest()]);
  if (!name.equals(certInfo.attestedName)) throw fail('TPM_ATTESTATION_CERTINFO_PUBAREA_HASH_NOT_MATCHED', 'attested.name is not the name of pubArea');
}

/** §8.3.1: the AIK certificate requirements. */
export function checkAikCertificate(aik: X509Certificate, aaguid: Buffer): void {
  try {
    const parts = certificateParts(aik);
    if (parts.version !== 3) throw fail('TPM_ATTESTATION_CERTIFICATE_VERSION_INVALID', `the AIK certificate is version ${parts.version}`);
    if (children(parts.subject, { lenientLengths: true }).length !== 0) throw fail('TPM_ATTESTATION_CERTIFICATE_SUBJECT_FIELD_INVALID', 'the AIK certificate subject is not empty');
    const extension = (oid: string) => {
      const found = parts.extensions.filter((e) => e.oid === oid);
      if (found.length > 1) throw fail('TPM_ATTESTATION_CERTIFICATE_INVALID', `extension ${oid} appears more than once`);
      return found[0];
    };
    checkSubjectAltName(extension('2.5.29.17')?.value);
    const eku = extension('2.5.29.37');
    const usages = eku ? sequenceOf(readDer(eku.value, { lenientLengths: true }), 'ExtKeyUsageSyntax').map(decodeOid) : [];
    if (!usages.includes(OID_TCG_KP_AIK_CERTIFICATE)) throw fail('TPM_ATTESTATION_CERTIFICATE_EXTENDED_KEY_USAGE_INVALID', 'extended key usage lacks tcg-kp-AIKCertificate (2.23.133.8.3)');
    if (claimsCa(aik)) throw fail('TPM_ATTESTATION_CERTIFICATE_BASIC_CONSTRAINTS_INVALID', 'the AIK certificate is a CA');
    const aaguidExtension = extension(OID_FIDO_GEN_CE_AAGUID);
    if (aaguidExtension && !decodeOctetString(readDer(aaguidExtension.value)).equals(aaguid)) {
      throw fail('TPM_ATTESTATION_CERTIFICATE_INVALID', 'the AAGUID in the AIK certificate differs from authenticator data');
    }
  } catch (err) {
    if (err instanceof Asn1Error) throw fail('TPM_ATTESTATION_CERTIFICATE_INVALID', `the AIK certificate cannot be read: ${err.message}`);
    throw err;
  }
}

/** TPMv2-EK-Profile §3.2.9: a directoryName with tpmManufacturer (a registered vendor), tpmModel, tpmVersion. */
function checkSubjectAltName(value: Buffer | undefined): void {
  const invalid = (detail: string) => fail('TPM_ATTESTATION_CERTIFICATE_SAN_INVALID', detail);
  if (!value) throw invalid('the AIK certificate has no subject alternative name');
  const names = sequenceOf(readDer(value, { lenientLengths: true }), 'GeneralNames', { lenientLengths: true });
  const attributes = names
    .filter((name) => isContext(name, 4) && name.constructed)
    .flatMap((name) => decodeName(children(name, { lenientLengths: true })[0]!, { lenientLengths: true }));
  const get = (oid: string) => attributes.find((a) => a.oid === oid)?.value;
  const manufacturer = get(OID_TPM_MANUFACTURER);
  if (!manufacturer) throw invalid('the directoryName lacks tpmManufacturer');
  if (!get(OID_TPM_MODEL)) throw invalid('the directoryName lacks tpmModel');
  if (!get(OID_TPM_VERSION)) throw invalid('the directoryName lacks tpmVersion');
  const id = /^id:([0-9A-Fa-f]{8})$/.exec(manufacturer)?.[1]?.toUpperCase();
  if (!id || !TPM_MANUFACTURERS.has(id)) throw invalid(`tpmManufacturer ${manufacturer.slice(0, 32)} is not a registered TPM vendor`);
}

export const tpm: AttestationFormat = {
  fmt: 'tpm',
  verify(input): AttestationOutcome {
    // Step 1 (§8.3): the attStmt fields.
    const ver = input.attStmt.get('ver');
    if (ver !== '2.0') throw fail('TPM_ATTESTATION_DATA_INVALID', 'ver must be "2.0"');
    const alg = readAlg('tpm', input.attStmt);
    if (!coseAlgorithm(alg)) throw new FidoError('INVALID_COSE_ALGORITHM', `tpm: alg ${alg} is not supported`);
    const sig = readSig('tpm', input.attStmt);
    const x5c = readX5c('tpm', input.attStmt);
    const certInfoBytes = byteString(input.attStmt, 'certInfo');
    const pubAreaBytes = byteString(input.attStmt, 'pubArea');
    const pubArea = parsePubArea(pubAreaBytes);
    const certInfo = parseCertInfo(certInfoBytes);
    // Step 3: pubArea is the credential key.
    checkPubAreaKey(pubArea, input);
    // Step 5: certInfo certifies pubArea over authenticatorData ‖ clientDataHash.
    checkCertInfo(certInfo, pubArea, pubAreaBytes, alg, input);
    // Step 6: sig over certInfo with the AIK, whose certificate meets §8.3.1.
    const [aik] = x5c as [X509Certificate, ...X509Certificate[]];
    const aikKey = certificatePublicKey(aik, 'x5c[0] (the AIK certificate)');
    if (!keyMatchesAlgorithm(alg, aikKey)) throw fail('TPM_ATTESTATION_ALGORITHM_NOT_MATCHED', `the AIK key cannot sign with alg ${alg}`);
    if (!verifySignature(alg, aikKey, certInfoBytes, sig)) {
      throw new FidoError('ATTESTATION_SIGNATURE_VERIFICATION_FAIL', 'tpm: sig over certInfo does not verify with the AIK certificate');
    }
    checkAikCertificate(aik, input.authData.attestedCredentialData?.aaguid ?? Buffer.alloc(16));
    return { type: 'attca', trustPath: x5c };
  },
};
