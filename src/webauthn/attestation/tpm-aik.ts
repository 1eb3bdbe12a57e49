// §8.3.1: what the AIK certificate of a "tpm" attestation must be: version 3, an empty subject, a subject
// alternative name naming a registered TPM vendor, model and version, the tcg-kp-AIKCertificate usage, not a
// CA, and the authenticator's AAGUID when it carries one.
import type { X509Certificate } from 'node:crypto';
import { Asn1Error, children, decodeOctetString, decodeOid, isContext, readDer, sequenceOf } from '../asn1.js';
import { claimsCa } from '../certificates.js';
import { certificateParts, decodeName } from '../x509.js';
import { tpmError as fail } from './tpm-structures.js';

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

/** §8.3.1: the AIK certificate requirements. */
export function checkAikCertificate(aik: X509Certificate, aaguid: Buffer): void {
  try {
    const parts = certificateParts(aik);
    if (parts.version !== 3)
      throw fail('TPM_ATTESTATION_CERTIFICATE_VERSION_INVALID', `the AIK certificate is version ${parts.version}`);
    if (children(parts.subject, { lenientLengths: true }).length !== 0)
      throw fail('TPM_ATTESTATION_CERTIFICATE_SUBJECT_FIELD_INVALID', 'the AIK certificate subject is not empty');
    const extension = (oid: string) => {
      const found = parts.extensions.filter((e) => e.oid === oid);
      if (found.length > 1)
        throw fail('TPM_ATTESTATION_CERTIFICATE_INVALID', `extension ${oid} appears more than once`);
      return found[0];
    };
    checkSubjectAltName(extension('2.5.29.17')?.value);
    const eku = extension('2.5.29.37');
    const usages = eku
      ? sequenceOf(readDer(eku.value, { lenientLengths: true }), 'ExtKeyUsageSyntax').map(decodeOid)
      : [];
    if (!usages.includes(OID_TCG_KP_AIK_CERTIFICATE))
      throw fail(
        'TPM_ATTESTATION_CERTIFICATE_EXTENDED_KEY_USAGE_INVALID',
        'extended key usage lacks tcg-kp-AIKCertificate (2.23.133.8.3)',
      );
    if (claimsCa(aik))
      throw fail('TPM_ATTESTATION_CERTIFICATE_BASIC_CONSTRAINTS_INVALID', 'the AIK certificate is a CA');
    const aaguidExtension = extension(OID_FIDO_GEN_CE_AAGUID);
    if (aaguidExtension && !decodeOctetString(readDer(aaguidExtension.value)).equals(aaguid)) {
      throw fail(
        'TPM_ATTESTATION_CERTIFICATE_INVALID',
        'the AAGUID in the AIK certificate differs from authenticator data',
      );
    }
  } catch (err) {
    if (err instanceof Asn1Error)
      throw fail('TPM_ATTESTATION_CERTIFICATE_INVALID', `the AIK certificate cannot be read: ${err.message}`);
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
  if (!id || !TPM_MANUFACTURERS.has(id))
    throw invalid(`tpmManufacturer ${manufacturer.slice(0, 32)} is not a registered TPM vendor`);
}
