// WebAuthn L3 §7.1 steps 23-24: an application's trust decision over a verified attestation statement.
// Trust is proven, never claimed. The default policy is permissive (synced passkey providers send none
// attestation and never appear in metadata): it records the attestation type, whether the chain reached
// a trusted root, whether that proved the AAGUID, and the metadata description. What always fails: a
// broken chain, a chain that does not lead to the trust material that applies to it (the application's
// anchors, the roots of its AAGUID's statement), an AAGUID list asked about an unproven AAGUID, an
// AAGUID the lists refuse, an authenticator metadata reports compromised. `requireTrusted` additionally
// refuses every attestation that does not chain to a trusted root (none and self included).

import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AttestationPolicy } from '../service-config.js';
import { FidoError } from '../errors/catalogue.js';
import type { AttestationType } from './types.js';
import { buildPath } from './certificates.js';
import {
  attestationKeyIdentifier,
  indexMetadata,
  isStale,
  latestStatus,
  REFUSED_STATUSES,
  refusingStatus,
  ZERO_AAGUID,
  type MetadataEntry,
  type MetadataIndex,
} from './metadata/index.js';
import { readCrlFilesSync, readMetadataFileSync } from './metadata/load.js';
import { MDS_ROOT_CERTIFICATES } from './roots/index.js';
import type { TrustDecision, TrustEvaluator, TrustInput } from './attestation/types.js';

export interface TrustPolicyData {
  /** The application's own anchors (PEM files of `attestation.trustAnchors`). */
  readonly anchors: readonly X509Certificate[];
  readonly requireTrusted: boolean;
  /** The verified MDS3 BLOB, indexed; null or absent = no metadata. */
  readonly metadata?: MetadataIndex | null;
  readonly aaguidAllow?: readonly string[];
  readonly aaguidDeny?: readonly string[];
  readonly enforceStatusAtAuthentication?: boolean;
}

/** Formats whose devices send their root certificate as the last x5c element. */
const FORMATS_SENDING_ROOT: ReadonlySet<string> = new Set(['android-key']);

/** The metadata attestationTypes value for each attestation type we record (Metadata Statement §3.6.3). */
const METADATA_ATTESTATION_TYPE: Record<AttestationType, string | null> = {
  basic: 'basic_full',
  self: 'basic_surrogate',
  attca: 'attca',
  anonca: 'anonca',
  none: 'none',
  uncertain: null,
};

function hasAaguidLists(policy: TrustPolicyData): boolean {
  return (policy.aaguidAllow?.length ?? 0) > 0 || (policy.aaguidDeny?.length ?? 0) > 0;
}

/** The lists decide only on a proven AAGUID: an unproven one is refused, since any authenticator can write it. */
function checkAaguidLists(policy: TrustPolicyData, input: TrustInput, aaguidProven: boolean): void {
  const { aaguid } = input;
  if (!hasAaguidLists(policy)) return;
  if (!aaguidProven) {
    const list = (policy.aaguidAllow?.length ?? 0) > 0 ? 'allow-list' : 'deny-list';
    throw new FidoError(
      'AAGUID_NOT_PROVEN',
      `the application's AAGUID ${list} decides only on an AAGUID a trusted attestation proved; ` +
        `this ${input.fmt} attestation (${input.outcome.type}) does not prove AAGUID ${aaguid}`,
    );
  }
  if (policy.aaguidDeny?.includes(aaguid))
    throw new FidoError('AAGUID_NOT_ALLOWED', `AAGUID ${aaguid} is on the application's deny-list`);
  if (policy.aaguidAllow && policy.aaguidAllow.length > 0 && !policy.aaguidAllow.includes(aaguid)) {
    throw new FidoError('AAGUID_NOT_ALLOWED', `AAGUID ${aaguid} is not on the application's allow-list`);
  }
}

/** The metadata entry: by AAGUID, or (only for the all-zero AAGUID of U2F) by the attestation key identifier. */
function findEntry(metadata: MetadataIndex | null | undefined, input: TrustInput): MetadataEntry | undefined {
  if (!metadata) return undefined;
  if (input.aaguid !== ZERO_AAGUID) return metadata.findByAaguid(input.aaguid);
  const [leaf] = input.outcome.trustPath;
  return leaf ? metadata.findByKeyIdentifier(attestationKeyIdentifier(leaf)) : undefined;
}

function describeStatus(entry: MetadataEntry, status: string): string {
  return `metadata reports ${entry.description ?? entry.aaguid ?? 'this authenticator'} as ${status}`;
}

/** What the chain of an attestation with a trust path reached. */
interface ChainFinding {
  /** Reached a current trust anchor (application anchors, the statement's roots, or the format's roots). */
  readonly trusted: boolean;
  /** Reached the application's anchors or the statement's current roots: the AAGUID is proven. */
  readonly proven: boolean;
  /** Reached only roots of a statement whose BLOB is stale. */
  readonly onlyStale: boolean;
}

/**
 * Builds the path of a presented chain. The roots that may prove it: the application's anchors and the
 * roots of the AAGUID's own statement (current BLOB). A format's bundled roots count only when the AAGUID
 * has no statement, and prove no AAGUID. When the application's anchors or the statement's roots apply,
 * a chain that leads elsewhere is refused (§7.1 step 24), whatever requireTrusted says.
 */
function examineChain(
  policy: TrustPolicyData,
  input: TrustInput,
  entry: MetadataEntry | undefined,
  stale: boolean,
): ChainFinding {
  const { trustPath, formatRoots = [] } = input.outcome;
  const options = { rootMaySend: FORMATS_SENDING_ROOT.has(input.fmt) };
  const statementRoots = entry?.attestationRoots ?? [];
  const proving = [...policy.anchors, ...(stale ? [] : statementRoots)];
  const anchors = [...proving, ...(entry ? [] : formatRoots)];
  const anchor = buildPath(trustPath, anchors, input.now, options).anchor;
  if (anchor)
    return {
      trusted: true,
      proven: proving.some((root) => root.fingerprint256 === anchor.fingerprint256),
      onlyStale: false,
    };
  const onlyStale =
    stale &&
    statementRoots.length > 0 &&
    buildPath(trustPath, [...anchors, ...statementRoots], input.now, options).anchor !== undefined;
  if (!onlyStale) refuseUnledChain(policy, input, statementRoots);
  return { trusted: false, proven: false, onlyStale };
}

function refuseUnledChain(
  policy: TrustPolicyData,
  input: TrustInput,
  statementRoots: readonly X509Certificate[],
): void {
  const applicable = [
    ...(policy.anchors.length > 0 ? ["the application's trust anchors"] : []),
    ...(statementRoots.length > 0 ? [`the roots of the metadata statement of AAGUID ${input.aaguid}`] : []),
  ];
  if (applicable.length === 0) return;
  // A TPM AIK certificate has an empty subject (OpenSSL then gives none).
  const subject = input.outcome.trustPath[0]?.subject as string | undefined;
  const leaf = subject ? `x5c[0] (${subject.replace(/\n/g, ', ')})` : 'x5c[0]';
  throw new FidoError(
    'ATTESTATION_NOT_TRUSTED',
    `the ${input.fmt} attestation chain of ${leaf} does not lead to ${applicable.join(' or ')}`,
  );
}

export function createTrustEvaluator(policy: TrustPolicyData): TrustEvaluator {
  return {
    evaluate(input: TrustInput): TrustDecision {
      const { trustPath, type } = input.outcome;
      const entry = findEntry(policy.metadata, input);
      const stale = policy.metadata ? isStale(policy.metadata.blob, input.now) : false;

      // Status reports are enforced even from a stale BLOB: newer data can only add reports. An unproven
      // AAGUID may still be refused by them (a refusal grants nothing a claim could abuse).
      const refused = entry && refusingStatus(entry, input.now, trustPath);
      if (entry && refused)
        throw new FidoError('AUTHENTICATOR_STATUS_NOT_ACCEPTED', describeStatus(entry, refused.status));

      let finding: ChainFinding = { trusted: false, proven: false, onlyStale: false };
      if (trustPath.length > 0) {
        finding = examineChain(policy, input, entry, stale);
      } else if (type === 'self' && entry) {
        // Self attestation is trusted when the model's metadata says it attests that way (surrogate basic);
        // any key can self-attest, so it proves no AAGUID.
        const surrogate = entry.attestationTypes.includes('basic_surrogate');
        finding = { trusted: !stale && surrogate, proven: false, onlyStale: stale && surrogate };
      }
      // A statement that lists its attestation types excludes the others (e.g. full attestation from a
      // model that only does surrogate basic).
      const expectedType = METADATA_ATTESTATION_TYPE[type];
      if (
        finding.trusted &&
        entry &&
        entry.attestationTypes.length > 0 &&
        expectedType &&
        !entry.attestationTypes.includes(expectedType)
      ) {
        finding = { trusted: false, proven: false, onlyStale: false };
      }
      checkAaguidLists(policy, input, finding.proven);
      if (policy.requireTrusted && !finding.trusted) {
        if (finding.onlyStale)
          throw new FidoError(
            'METADATA_BLOB_EXPIRED',
            `the metadata BLOB was due for renewal on ${policy.metadata?.blob.nextUpdate}`,
          );
        throw new FidoError(
          'ATTESTATION_NOT_TRUSTED',
          `${input.fmt} attestation (${type}) does not chain to a trusted root`,
        );
      }
      return { trusted: finding.trusted, aaguidProven: finding.proven, authenticatorName: entry?.description ?? null };
    },

    checkAuthentication({ aaguid, now }): void {
      if (!policy.enforceStatusAtAuthentication || !policy.metadata || aaguid === ZERO_AAGUID) return;
      const entry = policy.metadata.findByAaguid(aaguid);
      const refused = entry && refusingStatus(entry, now);
      if (entry && refused)
        throw new FidoError('AUTHENTICATOR_STATUS_NOT_ACCEPTED', describeStatus(entry, refused.status));
    },

    reportedStatuses(now: Date): ReadonlyMap<string, string> {
      const found = new Map<string, string>();
      for (const entry of policy.metadata?.blob.entries ?? []) {
        if (entry.aaguid === null || entry.aaguid === ZERO_AAGUID) continue;
        const report = latestStatus(entry, now);
        if (report && REFUSED_STATUSES.has(report.status)) found.set(entry.aaguid, report.status);
      }
      return found;
    },
  };
}

export interface LoadOptions {
  /** The time at which the BLOB's signing chain is checked (the service's clock at start). */
  readonly now?: Date;
  /** MDS roots to use instead of `policy.metadataRoots` / the bundled real roots (tests). */
  readonly metadataRoots?: readonly X509Certificate[];
}

/**
 * Builds an application's evaluator from its configured policy, reading the PEM anchor files, the
 * metadata BLOB and the CRLs of its signing chain once (at start, never per request). Throws FidoError
 * (METADATA_BLOB_*) when the BLOB does not verify or its chain is revoked or not covered by the configured
 * CRLs: an application that configured metadata must not run without it.
 */
export function loadTrustEvaluator(policy: AttestationPolicy, options: LoadOptions = {}): LoadedTrustEvaluator {
  const anchors = policy.trustAnchors.flatMap((file) => readPemCertificates(readFileSync(file, 'utf8')));
  const now = options.now ?? new Date();
  const metadata = policy.metadata
    ? indexMetadata(
        readMetadataFileSync(
          policy.metadata,
          metadataRootsFor(policy, options),
          now,
          readCrlFilesSync(policy.metadataCrls ?? []),
        ),
      )
    : null;
  const evaluator = createTrustEvaluator({
    anchors,
    requireTrusted: policy.requireTrusted,
    metadata,
    aaguidAllow: policy.aaguidAllow,
    aaguidDeny: policy.aaguidDeny,
    enforceStatusAtAuthentication: policy.enforceStatusAtAuthentication ?? false,
  });
  const metadataInfo =
    metadata && policy.metadata
      ? {
          file: policy.metadata,
          serial: metadata.blob.serial,
          nextUpdate: metadata.blob.nextUpdate,
          entries: metadata.blob.entries.length,
          staleAtLoad: isStale(metadata.blob, now),
          revocationChecked: metadata.blob.revocationChecked,
        }
      : null;
  return { ...evaluator, metadataInfo };
}

/** What the service can log at start about an application's metadata (e.g. warn when it is already stale). */
export interface MetadataInfo {
  readonly file: string;
  readonly serial: number;
  readonly nextUpdate: string;
  readonly entries: number;
  readonly staleAtLoad: boolean;
  /**
   * Whether the BLOB's signing chain was checked against CRLs (`attestation.metadataCrls`); false = its
   * revocation was not checked (worth saying in the start log).
   */
  readonly revocationChecked: boolean;
}

export interface LoadedTrustEvaluator extends TrustEvaluator {
  readonly metadataInfo: MetadataInfo | null;
}

/** The roots that sign an application's metadata BLOB: explicit, configured, or the real MDS roots. */
export function metadataRootsFor(policy: AttestationPolicy, options: LoadOptions = {}): readonly X509Certificate[] {
  if (options.metadataRoots) return options.metadataRoots;
  if (policy.metadataRoots && policy.metadataRoots.length > 0) {
    return policy.metadataRoots.flatMap((file) => readPemCertificates(readFileSync(file, 'utf8')));
  }
  return MDS_ROOT_CERTIFICATES;
}

export function readPemCertificates(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => new X509Certificate(block));
}
