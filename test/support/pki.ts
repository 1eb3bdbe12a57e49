// Test PKI: roots, intermediates and leaves with chosen keys, validity and extensions, built with the
// tests' certificate builder (x509-builder.ts, on @peculiar/asn1-x509). Every test makes the certificates
// it needs; nothing is shared.

import type { KeyObject, X509Certificate } from 'node:crypto';
import { generateKeyPair } from './keys.js';
import { BitString, OctetString } from '@peculiar/asn1-schema';
import { derOf } from './asn1-schema.js';
import {
  buildCertificate,
  buildCrl,
  type BuiltCrl,
  type CertificateSpec,
  type CrlSpec,
  type Extension,
  type NameSpec,
  type RevokedEntrySpec,
} from './x509-builder.js';

export type KeyKind = 'p256' | 'p384' | 'p521' | 'rsa2048' | 'rsa3072' | 'ed25519';

export interface KeyPair {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}

export function generateKey(kind: KeyKind = 'p256'): KeyPair {
  switch (kind) {
    case 'p256':
      return generateKeyPair({ type: 'ec', curve: 'P-256' });
    case 'p384':
      return generateKeyPair({ type: 'ec', curve: 'P-384' });
    case 'p521':
      return generateKeyPair({ type: 'ec', curve: 'P-521' });
    case 'rsa2048':
      return generateKeyPair({ type: 'rsa', modulusLength: 2048 });
    case 'rsa3072':
      return generateKeyPair({ type: 'rsa', modulusLength: 3072 });
    case 'ed25519':
      return generateKeyPair({ type: 'ed25519' });
  }
}

/** Wide default validity so certificates work at the real clock and at fixed test clocks alike. */
export const DEFAULT_NOT_BEFORE = new Date('2000-01-01T00:00:00Z');
export const DEFAULT_NOT_AFTER = new Date('2049-12-31T23:59:59Z');

export interface Issued {
  readonly cert: X509Certificate;
  readonly der: Buffer;
  readonly pem: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  readonly subject: NameSpec;
  readonly keyIdentifier: Buffer;
}

export interface IssueOptions extends Partial<Omit<CertificateSpec, 'publicKey' | 'signingKey' | 'issuer'>> {
  /** Key kind to generate, or an existing key pair (e.g. the authenticator's attestation key). */
  readonly key?: KeyKind | KeyPair;
  /** Override the issuer name (e.g. to break name chaining on purpose). */
  readonly issuerName?: NameSpec | Uint8Array;
}

function keyPairOf(key: IssueOptions['key'], fallback: KeyKind): KeyPair {
  return typeof key === 'object' ? key : generateKey(key ?? fallback);
}

function issue(
  issuer: Issued | undefined,
  options: IssueOptions,
  defaults: Partial<CertificateSpec> & { subject: NameSpec },
): Issued {
  const { key, issuerName, ...spec } = options;
  const pair = keyPairOf(key, 'p256');
  const subject = spec.subject ?? defaults.subject;
  const built = buildCertificate({
    notBefore: DEFAULT_NOT_BEFORE,
    notAfter: DEFAULT_NOT_AFTER,
    ...defaults,
    ...spec,
    subject,
    publicKey: pair.publicKey,
    signingKey: issuer ? issuer.privateKey : pair.privateKey,
    issuer: issuerName ?? (issuer ? issuer.subject : subject),
    ...(issuer ? { authorityKeyIdentifier: issuer.keyIdentifier } : {}),
  });
  return {
    cert: built.cert,
    der: built.der,
    pem: built.pem,
    privateKey: pair.privateKey,
    publicKey: pair.publicKey,
    subject,
    keyIdentifier: built.keyIdentifier,
  };
}

/** A self-signed CA certificate. */
export function createRoot(options: IssueOptions = {}): Issued {
  return issue(undefined, options, {
    subject: { C: 'US', O: 'Test PKI', CN: 'Test Root CA' },
    basicConstraints: { ca: true },
    keyUsage: ['keyCertSign', 'cRLSign'],
  });
}

/** An intermediate CA issued by `issuer`. */
export function createIntermediate(issuer: Issued, options: IssueOptions = {}): Issued {
  return issue(issuer, options, {
    subject: { C: 'US', O: 'Test PKI', CN: 'Test Intermediate CA' },
    basicConstraints: { ca: true },
    keyUsage: ['keyCertSign', 'cRLSign'],
  });
}

/** An end-entity certificate issued by `issuer` (CA flag false, digitalSignature). */
export function createLeaf(issuer: Issued, options: IssueOptions = {}): Issued {
  return issue(issuer, options, {
    subject: { C: 'US', O: 'Test Authenticator Maker', OU: 'Authenticator Attestation', CN: 'Test Attestation Leaf' },
    basicConstraints: { ca: false },
    keyUsage: ['digitalSignature'],
  });
}

export interface TestChain {
  readonly root: Issued;
  readonly intermediates: readonly Issued[];
  readonly leaf: Issued;
  /** x5c as an authenticator sends it: leaf first, then intermediates, never the root. */
  readonly x5c: readonly Buffer[];
}

/** Root → `intermediateCount` intermediates → leaf. */
export function createChain(
  options: { intermediateCount?: number; root?: IssueOptions; intermediate?: IssueOptions; leaf?: IssueOptions } = {},
): TestChain {
  const root = createRoot(options.root);
  const intermediates: Issued[] = [];
  let parent = root;
  for (let i = 0; i < (options.intermediateCount ?? 1); i++) {
    parent = createIntermediate(parent, {
      subject: { C: 'US', O: 'Test PKI', CN: `Test Intermediate CA ${i + 1}` },
      ...options.intermediate,
    });
    intermediates.push(parent);
  }
  const leaf = createLeaf(parent, options.leaf);
  return { root, intermediates, leaf, x5c: [leaf.der, ...[...intermediates].reverse().map((c) => c.der)] };
}

/** id-fido-gen-ce-aaguid (1.3.6.1.4.1.45724.1.1.4): OCTET STRING of the 16-byte AAGUID (§8.2.1). */
export function aaguidExtension(aaguid: Uint8Array | string, critical = false): Extension {
  const bytes = typeof aaguid === 'string' ? Buffer.from(aaguid.replace(/-/g, ''), 'hex') : Buffer.from(aaguid);
  return { oid: '1.3.6.1.4.1.45724.1.1.4', critical, valueDer: derOf(new OctetString(bytes)) };
}

/** id-fido-u2f-ce-transports (1.3.6.1.4.1.45724.2.1.1): a BIT STRING of transports (bit 2 = USB). */
export function transportsExtension(bits = 0x20): Extension {
  return { oid: '1.3.6.1.4.1.45724.2.1.1', valueDer: derOf(new BitString(Buffer.from([bits]), 5)) };
}

export interface AttestationCa {
  readonly root: Issued;
  readonly intermediate: Issued;
}

/** A vendor's attestation CA: a root and the intermediate that issues attestation certificates. */
export function createAttestationCa(vendor = 'Test Vendor', key: KeyKind = 'p256'): AttestationCa {
  const root = createRoot({ subject: { C: 'US', O: vendor, CN: `${vendor} Attestation Root` }, key });
  const intermediate = createIntermediate(root, {
    subject: { C: 'US', O: vendor, CN: `${vendor} Attestation CA` },
    key,
  });
  return { root, intermediate };
}

export interface CrlOptions extends Partial<Omit<CrlSpec, 'signingKey' | 'issuer' | 'revoked'>> {
  /** Certificates (revoked at `revocationDate`) or explicit entries to list. */
  readonly revoke?: readonly (Issued | RevokedEntrySpec)[];
  /** Default: the default notBefore (the CRL is issued before every test clock). */
  readonly revocationDate?: Date;
  /** Sign with this key instead of the issuer's (a forged CRL). */
  readonly signingKey?: KeyObject;
  /** Override the issuer name written in the CRL. */
  readonly issuerName?: NameSpec | Uint8Array;
}

/**
 * A CRL of `issuer`, signed with its key. Default validity: thisUpdate = the default notBefore,
 * nextUpdate = the default notAfter, so it is current at every test clock unless a test says otherwise.
 */
export function createCrl(issuer: Issued, options: CrlOptions = {}): BuiltCrl {
  const { revoke = [], revocationDate = DEFAULT_NOT_BEFORE, signingKey, issuerName, ...spec } = options;
  return buildCrl({
    thisUpdate: DEFAULT_NOT_BEFORE,
    nextUpdate: DEFAULT_NOT_AFTER,
    authorityKeyIdentifier: issuer.keyIdentifier,
    ...spec,
    signingKey: signingKey ?? issuer.privateKey,
    issuer: issuerName ?? issuer.subject,
    revoked: revoke.map((item) => ('cert' in item ? { serial: serialOf(item.cert), revocationDate } : item)),
  });
}

/** The certificate's serial number as a bigint (X509Certificate gives it as hex). */
export function serialOf(cert: X509Certificate): bigint {
  return BigInt(`0x${cert.serialNumber}`);
}
