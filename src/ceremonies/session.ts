// The ceremony (challenge) side of the result calls: which variant a result call claims, the request-level
// checks that must pass before the ceremony is touched, and the single-use take of the ceremony itself.

import type { Variant } from '../service-config.js';
import { FidoError } from '../errors/catalogue.js';
import type { CeremonyRecord, CeremonyType } from '../stores/types.js';
import type { ClientDataExpectation } from '../webauthn/types.js';
import type { CeremonyContext } from './context.js';
import { exactOrigin, localOriginMatcher, requireStandardOrigin, standardOrigins } from './origins.js';
import { LOCAL_RP_ID } from './username.js';

/**
 * A result request carries no username: `extensions.localhost` marks the local variant (the relay adds it).
 * Checks what can be checked before the ceremony is taken, so that a malformed call consumes nothing:
 * standard needs its origin header; both need the variant to be allowed for the application.
 */
export function claimedVariant(ctx: CeremonyContext, localMarker: unknown, type: CeremonyType): Variant {
  const variant: Variant = localMarker === undefined ? 'standard' : 'local';
  ctx.noteVariant(variant);
  if (variant === 'standard') {
    if (!ctx.application.variants.includes('standard')) {
      throw new FidoError('VARIANT_NOT_ALLOWED', 'This application is not approved for the standard variant.');
    }
    // Neither marker nor header: a standard call that lost its header, or a local relay that forgot its
    // bookkeeping. The ceremony is not taken yet, so the answer names both possible mistakes.
    if (ctx.originHeader === undefined) throw new FidoError('ORIGIN_HEADER_MISSING', missingMarkerOrOrigin(type));
    requireStandardOrigin(ctx.originHeader, standardOrigins(ctx.application));
  } else {
    if (!ctx.deps.config.local.enabled) throw new FidoError('LOCAL_VARIANT_DISABLED');
    if (!ctx.application.variants.includes('local')) {
      throw new FidoError('VARIANT_NOT_ALLOWED', 'This application is not registered for the local variant.');
    }
  }
  return variant;
}

function missingMarkerOrOrigin(type: CeremonyType): string {
  const marker =
    type === 'registration'
      ? 'extensions.localhost: true'
      : 'extensions.localhost: the blob the attestation result answered';
  return `A result call without extensions.localhost is taken as standard, and the standard variant requires the origin header; a local-variant call must carry ${marker}.`;
}

/**
 * Takes the ceremony of this challenge: atomic and single use, consumed whatever happens next.
 * Then checks it is of the expected operation and variant, and (standard) that the same origin asks.
 */
export async function takeCeremony(
  ctx: CeremonyContext,
  challenge: string,
  type: CeremonyType,
  variant: Variant,
): Promise<CeremonyRecord> {
  const taken = await ctx.deps.challenges.take(ctx.clientId, challenge, ctx.deps.runtime.now());
  if (taken.state === 'missing') {
    throw new FidoError(
      'SESSION_NOT_FOUND',
      'No pending ceremony for the challenge in clientDataJSON: never issued to this Client ID, or expired.',
    );
  }
  if (taken.state === 'used') throw new FidoError('SESSION_ALREADY_REVOKED');
  const record = taken.record;
  if (record.type !== type) {
    throw new FidoError('SESSION_NOT_FOUND', `The challenge was issued for ${record.type}, not ${type}.`);
  }
  if (record.variant !== variant) {
    if (record.variant === 'standard') throw new FidoError('LOCAL_EXTENSION_UNEXPECTED');
    throw new FidoError(
      type === 'registration' ? 'LOCAL_EXTENSION_MISSING' : 'LOCAL_BLOB_MISSING',
      'The challenge was issued for the local variant (username "…#localhost").',
    );
  }
  if (variant === 'standard' && record.origin !== ctx.originHeader) {
    throw new FidoError('ORIGIN_NOT_MATCHED', 'The origin header differs from the one of the options call.');
  }
  return record;
}

/** What both result calls expect of clientDataJSON and authenticatorData, from the ceremony they took. */
export function clientDataExpectation(ctx: CeremonyContext, ceremony: CeremonyRecord): ClientDataExpectation {
  const app = ctx.application;
  const standard = ceremony.variant === 'standard';
  return {
    ...(ctx.deps.mlDsa ? { mlDsa: ctx.deps.mlDsa } : {}),
    challenge: ceremony.challenge,
    isAllowedOrigin: standard ? exactOrigin(ceremony.origin ?? '') : localOriginMatcher(app.localOrigins),
    allowCrossOrigin: app.allowCrossOrigin,
    topOrigins: app.topOrigins ?? [],
    rpId: standard ? app.domain : LOCAL_RP_ID,
    requireUserVerification: ceremony.userVerification === 'required',
    // Only the ceremony an options call started with mediation "conditional" may lack UP (docs/api.md).
    userPresenceOptional: ceremony.type === 'registration' && ceremony.conditional === true,
  };
}
