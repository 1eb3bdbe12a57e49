// WebAuthn L3 §7.1 steps 23-24: an application's trust decision over a verified attestation statement.
// The default policy is permissive (synced passkey providers never appear in metadata): it records the
// attestation type, whether the chain reached a trusted root, and the metadata description. What always
// fails: a broken chain, an AAGUID the application refuses, an authenticator metadata reports compromised.
// `requireTrusted` additionally refuses every attestation that does not chain to a trusted root.

import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AttestationPolicy } from '../config.js';
import { FidoError } from '../errors.js';
import type { AttestationType } from './types.js';
import { buildPath } from './certificates.js';
import {
  attestationKeyIdentifier, indexMetadata, isStale, refusingStatus, ZERO_AAGUID, type MetadataEntry, type MetadataIndex,
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
  basic: 'basic_full', self: 'basic_surrogate', attca: 'attca', anonca: 'anonca', none: 'none', uncertain: null,
};

function checkAaguidLists(policy: TrustPolicyData, aaguid: string): void {
  if (policy.aaguidDeny?.includes(aaguid)) throw new FidoError('AAGUID_NOT_ALLOWED', `AAGUID ${aaguid} is on the application's deny-list`);
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

export function createTrustEvaluator(policy: TrustPolicyData): TrustEvaluator {
  return {
    evaluate(input: TrustInput): TrustDecision {
      const { trustPath, formatRoots = [], type } = input.outcome;
      checkAaguidLists(policy, input.aaguid);
      const entry = findEntry(policy.metadata, input);
      const stale = policy.metadata ? isStale(policy.metadata.blob, input.now) : false;

      // Status reports are enforced even from a stale BLOB: newer data can only add reports.
      const refused = entry && refusingStatus(entry, input.now, trustPath);
      if (entry && refused) throw new FidoError('AUTHENTICATOR_STATUS_NOT_ACCEPTED', describeStatus(entry, refused.status));

      const metadataRoots = entry?.attestationRoots ?? [];
      let trusted = false;
      let trustedOnlyByStaleMetadata = false;
      if (trustPath.length > 0) {
        // A broken chain fails under every policy; an unknown root only makes the attestation untrusted.
        const rootMaySend = FORMATS_SENDING_ROOT.has(input.fmt);
        const current = [...policy.anchors, ...formatRoots, ...(stale ? [] : metadataRoots)];
        trusted = buildPath(trustPath, current, input.now, { rootMaySend }).anchor !== undefined;
        if (!trusted && stale && metadataRoots.length > 0) {
          trustedOnlyByStaleMetadata = buildPath(trustPath, [...current, ...metadataRoots], input.now, { rootMaySend }).anchor !== undefined;
        }
      } else if (type === 'self' && entry) {
        // Self attestation is trusted when the model's metadata says it attests that way (surrogate basic).
        trusted = !stale && entry.attestationTypes.includes('basic_surrogate');
        trustedOnlyByStaleMetadata = stale && entry.attestationTypes.includes('basic_surrogate');
      }
      // A statement that lists its attestation types excludes the others (e.g. full attestation from a
      // model that only does surrogate basic).
      const expectedType = METADATA_ATTESTATION_TYPE[type];
      if (trusted && entry && entry.attestationTypes.length > 0 && expectedType && !entry.attestationTypes.includes(expectedType)) {
        trusted = false;
      }
      if (policy.requireTrusted && !trusted) {
        if (trustedOnlyByStaleMetadata) throw new FidoError('METADATA_BLOB_EXPIRED', `the metadata BLOB was due for renewal on ${policy.metadata?.blob.nextUpdate}`);
        throw new FidoError('ATTESTATION_NOT_TRUSTED', `${input.fmt} attestation (${type}) does not chain to a trusted root`);
      }
      return { trusted, authenticatorName: entry?.description ?? null };
    },

    checkAuthentication({ aaguid, now }): void {
      if (!policy.enforceStatusAtAuthentication || !policy.metadata || aaguid === ZERO_AAGUID) return;
      const entry = policy.metadata.findByAaguid(aaguid);
      const refused = entry && refusingStatus(entry, now);
      if (entry && refused) throw new FidoError('AUTHENTICATOR_STATUS_NOT_ACCEPTED', describeStatus(entry, refused.status));
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
    ? indexMetadata(readMetadataFileSync(policy.metadata, metadataRootsFor(policy, options), now, readCrlFilesSync(policy.metadataCrls ?? [])))
    : null;
  const evaluator = createTrustEvaluator({
    anchors,
    requireTrusted: policy.requireTrusted,
    metadata,
    aaguidAllow: policy.aaguidAllow,
    aaguidDeny: policy.aaguidDeny,
    enforceStatusAtAuthentication: policy.enforceStatusAtAuthentication ?? false,
  });
  const metadataInfo = metadata && policy.metadata
    ? {
      file: policy.metadata, serial: metadata.blob.serial, nextUpdate: metadata.blob.nextUpdate, entries: metadata.blob.entries.length,
      staleAtLoad: isStale(metadata.blob, now), revocationChecked: metadata.blob.revocationChecked,
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
