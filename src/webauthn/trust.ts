// WebAuthn L3 §7.1 steps 23-24: the default trust evaluator built from an application's attestation policy.
// Minimal first version; issue #4 adds FIDO metadata (MDS3), status reports and AAGUID lists.

import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AttestationPolicy } from '../config.js';
import { FidoError } from '../errors.js';
import { findAnchor, verifyPathInternals } from './certificates.js';
import type { TrustDecision, TrustEvaluator, TrustInput } from './attestation/types.js';

export interface TrustPolicyData {
  readonly anchors: readonly X509Certificate[];
  readonly requireTrusted: boolean;
}

export function createTrustEvaluator(policy: TrustPolicyData): TrustEvaluator {
  return {
    evaluate(input: TrustInput): TrustDecision {
      const { trustPath, formatRoots = [] } = input.outcome;
      let trusted = false;
      if (trustPath.length > 0) {
        // A broken chain (wrong order, expired) fails under every policy; an unknown root only makes
        // the attestation "untrusted", which the default permissive policy accepts and records.
        verifyPathInternals(trustPath, input.now);
        trusted = findAnchor(trustPath, [...policy.anchors, ...formatRoots], input.now) !== undefined;
      }
      if (policy.requireTrusted && !trusted) throw new FidoError('ATTESTATION_NOT_TRUSTED');
      return { trusted, authenticatorName: null };
    },
  };
}

/**
 * Builds an application's evaluator from its configured policy, reading the PEM anchor files once (at
 * start, never per request). Files may hold several certificates.
 */
export function loadTrustEvaluator(policy: AttestationPolicy): TrustEvaluator {
  const anchors = policy.trustAnchors.flatMap((file) => readPemCertificates(readFileSync(file, 'utf8')));
  return createTrustEvaluator({ anchors, requireTrusted: policy.requireTrusted });
}

export function readPemCertificates(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => new X509Certificate(block));
}
