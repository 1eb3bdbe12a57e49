// A test FIDO MDS3 BLOB: a root made in the test, a signing certificate under an intermediate, and a
// signer that produces the compact JWS the real service publishes. Nothing here reaches the network.

import { sign, type X509Certificate } from 'node:crypto';
import { crlDistributionPointsExtension, type BuiltCrl } from './x509-builder.js';
import { createChain, createCrl, type CrlOptions, type Issued, type KeyKind } from './pki.js';

/** Where the test MDS CAs "publish" their CRLs (named in the certificates' CRL distribution points). */
export const TEST_MDS_CRL_URLS = {
  /** The intermediate's CRL, which covers the BLOB signer (the leaf). */
  intermediate: 'http://crl.test-mds.example/mds-ca.crl',
  /** The root's CRL, which covers the intermediate. */
  root: 'http://crl.test-mds.example/mds-root.crl',
} as const;

export interface TestMds {
  readonly root: Issued;
  readonly intermediate: Issued;
  readonly signer: Issued;
  /** Signs `payload` as a BLOB (header alg, typ and x5c = [signer, intermediate]). */
  sign(payload: unknown, header?: Record<string, unknown>): string;
}

const JWS_FOR_KEY: Record<string, { alg: string; hash: string; ecdsa: boolean }> = {
  rsa: { alg: 'RS256', hash: 'sha256', ecdsa: false },
  ec: { alg: 'ES256', hash: 'sha256', ecdsa: true },
};

export function createTestMds(keyKind: KeyKind = 'p256'): TestMds {
  const chain = createChain({
    root: { subject: { C: 'US', O: 'Test FIDO Alliance', OU: 'Test Metadata BLOB Root', CN: 'Test MDS Root' } },
    intermediate: {
      subject: { C: 'US', O: 'Test FIDO Alliance', CN: 'Test MDS CA' },
      extensions: [crlDistributionPointsExtension([TEST_MDS_CRL_URLS.root])],
    },
    leaf: {
      key: keyKind,
      subject: { C: 'US', O: 'Test FIDO Alliance', CN: 'Test MDS BLOB signer' },
      extensions: [crlDistributionPointsExtension([TEST_MDS_CRL_URLS.intermediate])],
    },
  });
  const [intermediate] = chain.intermediates;
  const signer = chain.leaf;
  return {
    root: chain.root,
    intermediate: intermediate!,
    signer,
    sign(payload, header = {}) {
      const jws = JWS_FOR_KEY[signer.privateKey.asymmetricKeyType ?? ''];
      if (!jws) throw new Error('test MDS signer must be RSA or EC P-256');
      const fullHeader = {
        alg: jws.alg,
        typ: 'JWT',
        x5c: [signer.der.toString('base64'), intermediate!.der.toString('base64')],
        ...header,
      };
      const input = `${b64url(JSON.stringify(fullHeader))}.${b64url(JSON.stringify(payload))}`;
      const signature = sign(
        jws.hash,
        Buffer.from(input),
        jws.ecdsa ? { key: signer.privateKey, dsaEncoding: 'ieee-p1363' } : signer.privateKey,
      );
      return `${input}.${signature.toString('base64url')}`;
    },
  };
}

export interface TestMdsCrls {
  /** The root's CRL: covers the intermediate. */
  readonly root: BuiltCrl;
  /** The intermediate's CRL: covers the BLOB signer. */
  readonly intermediate: BuiltCrl;
}

/** The two CRLs that cover the test MDS chain; by default current at every test clock and listing nothing. */
export function createTestMdsCrls(
  mds: TestMds,
  options: { root?: CrlOptions; intermediate?: CrlOptions } = {},
): TestMdsCrls {
  return { root: createCrl(mds.root, options.root), intermediate: createCrl(mds.intermediate, options.intermediate) };
}

function b64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

export interface EntryOptions {
  readonly aaguid?: string;
  readonly keyIdentifiers?: readonly string[];
  readonly description?: string;
  readonly attestationTypes?: readonly string[];
  readonly roots?: readonly X509Certificate[];
  /** Status reports; default one FIDO_CERTIFIED report. */
  readonly statusReports?: readonly { status: string; effectiveDate?: string; certificate?: string }[];
}

/** One BLOB entry with an embedded metadata statement (only the fields the service reads, plus a few). */
export function mdsEntry(options: EntryOptions): Record<string, unknown> {
  const statement: Record<string, unknown> = {
    legalHeader: 'Test metadata statement',
    description: options.description ?? 'Test Authenticator',
    authenticatorVersion: 1,
    protocolFamily: options.aaguid ? 'fido2' : 'u2f',
    schema: 3,
    attestationTypes: options.attestationTypes ?? ['basic_full'],
    attestationRootCertificates: (options.roots ?? []).map((cert) => cert.raw.toString('base64')),
  };
  if (options.aaguid) statement.aaguid = options.aaguid;
  if (options.keyIdentifiers) statement.attestationCertificateKeyIdentifiers = options.keyIdentifiers;
  return {
    ...(options.aaguid ? { aaguid: options.aaguid } : {}),
    ...(options.keyIdentifiers ? { attestationCertificateKeyIdentifiers: options.keyIdentifiers } : {}),
    metadataStatement: statement,
    statusReports: options.statusReports ?? [{ status: 'FIDO_CERTIFIED', effectiveDate: '2020-01-01' }],
    timeOfLastStatusChange: '2020-01-01',
  };
}

export function blobPayload(
  entries: readonly unknown[],
  options: { no?: number; nextUpdate?: string } = {},
): Record<string, unknown> {
  return {
    legalHeader: 'Test BLOB, not for production',
    no: options.no ?? 1,
    nextUpdate: options.nextUpdate ?? '2049-12-31',
    entries,
  };
}
