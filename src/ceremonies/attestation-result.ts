// POST /api/attestation/result: verifies a registration (WebAuthn L3 §7.1, in src/webauthn/registration.ts)
// against the ceremony its challenge names. Standard: stores the credential and answers ok only once the
// store has it. Local: stores nothing and answers the sealed credential as `localhost`.

import type { AttestationResultFields } from '../schemas/answers.js';
import { FidoError } from '../errors/catalogue.js';
import type { CeremonyRecord, CredentialRecord } from '../stores/types.js';
import { encodeBase64url } from '../util/base64url.js';
import { checkBackupEligibility } from '../webauthn/ceremony-checks.js';
import { parseClientData } from '../webauthn/client-data.js';
import { parseRegistration } from '../webauthn/parse.js';
import { verifyRegistration } from '../webauthn/registration.js';
import type { RegistrationExpectation, VerifiedRegistration } from '../webauthn/types.js';
import { type CeremonyContext, traced } from './context.js';
import { localCredentialFromRecord, sealLocalCredential } from './local-blob.js';
import { registrationFields } from './outcome.js';
import type { AttestationResultRequest } from './inputs.js';
import { claimedVariant, clientDataExpectation, takeCeremony } from './session.js';
import { acceptedSignals } from './signals.js';
import { issueCredentialsToken } from './credentials-token.js';
import { passkeyLimitReached } from './passkey-limit.js';
import { LOCAL_RP_ID } from './username.js';
import { eventMessages } from './events.js';
import { credentialData } from '../webhooks/events.js';

/**
 * How long the local variant remembers a registered credential id (the store bounds how many:
 * LOCAL_CREDENTIAL_LIMITS): development data, kept long enough for a developer's weeks of testing.
 */
export const LOCAL_CREDENTIAL_LIFETIME_MS = 30 * 24 * 3600 * 1000;

export async function attestationResult(
  ctx: CeremonyContext,
  request: AttestationResultRequest,
): Promise<AttestationResultFields> {
  const variant = claimedVariant(ctx, request.localMarker, 'registration');
  if (variant === 'local' && request.localMarker !== true) {
    throw new FidoError(
      'LOCAL_EXTENSION_MISSING',
      'extensions.localhost must be the boolean true in an attestation result.',
    );
  }
  const clientData = parseClientData(request.response.clientDataJSON);
  // From here on the ceremony is consumed, whether verification then succeeds or fails.
  const ceremony = await takeCeremony(ctx, clientData.challenge, 'registration', variant);
  ctx.noteSubject({ username: ceremony.username });

  const parsed = parseRegistration(request, clientData);
  ctx.noteSubject({ credentialId: encodeBase64url(parsed.credentialId) });
  const verified = traced(ctx, 'webauthn.verify_registration', () =>
    verifyRegistration(parsed, expectationFor(ctx, ceremony)),
  );
  checkBackupEligibility(ctx.application.backupEligibility, verified.flags.be);
  const credential = credentialRecord(ctx, ceremony, verified, request);
  const facts = { flags: verified.flags, signCount: verified.signCount, attachment: request.attachment };

  if (variant === 'local') {
    const sealed = sealLocalCredential(
      localCredentialFromRecord(credential, LOCAL_RP_ID),
      ctx.deps.secrets.localBlobKeys,
      ctx.deps.runtime.randomBytes,
    );
    const now = ctx.deps.runtime.now();
    // An id this user registered already: a blob for it would replace the one their relay keeps (issue 33).
    const remembered = await ctx.deps.challenges.listLocalCredentials(ctx.clientId, credential.userHandle, now);
    if (remembered.some((entry) => entry.credentialId === credential.credentialId))
      throw new FidoError('DUPLICATED_CREDENTIAL_ID', 'This user registered this credential id already.');
    // Only the id and transports are remembered (never the key), so that assertion options can list them
    // for a security key, which the browser finds only by its id (docs/api.md, "Local variant").
    await ctx.deps.challenges.rememberLocalCredential(
      {
        clientId: ctx.clientId,
        userHandle: credential.userHandle,
        credentialId: credential.credentialId,
        transports: credential.transports,
        expiresAt: now + LOCAL_CREDENTIAL_LIFETIME_MS,
      },
      now,
    );
    return { localhost: sealed, ...registrationFields(credential, facts) };
  }
  // A credential is answered ok only after it is durably stored (docs/decisions.md "Limits and bad input").
  const events = eventMessages(ctx, 'credential.created', {
    ...credentialData(credential),
    aaguid: credential.aaguid,
    authenticatorName: credential.authenticatorName ?? null,
    backupEligible: credential.backupEligible,
    backupState: credential.backupState,
    attestationTrusted: credential.attestationTrusted,
  });
  // At most maxPasskeysPerUser, checked by the insert itself: registrations of one user at once cannot pass it.
  const count = await ctx.deps.credentials.createCounted(credential, ctx.application.maxPasskeysPerUser, events);
  if (count === 'duplicate') throw new FidoError('DUPLICATED_CREDENTIAL_ID');
  if (count === 'limit') throw passkeyLimitReached(ctx.application.maxPasskeysPerUser);
  // The user's credentials now, this one included: what the password manager should keep (docs/api.md "Signals").
  // The store counted them with the insert: a user's first credential needs no read (docs/performance.md).
  const owned = count === 1 ? [credential] : await ctx.deps.credentials.listByUser(ctx.clientId, credential.userHandle);
  return {
    ...registrationFields(credential, facts),
    signals: acceptedSignals(ctx.application.domain, credential, owned),
    ...(firstCredential(owned, credential.credentialId) && {
      credentialsToken: issueCredentialsToken(
        ctx.deps.secrets.userHandleKey,
        ctx.clientId,
        credential.userHandle,
        ctx.deps.runtime.now(),
      ),
    }),
  };
}

/**
 * A registration proves a sign-in only when it created the user (docs/decisions.md "A credentialsToken proves a
 * sign-in"): anyone may register another passkey under a known user name, so only the user's first credential
 * earns a credentialsToken; a further one is managed after a sign-in (assertion result).
 */
function firstCredential(owned: readonly CredentialRecord[], credentialId: string): boolean {
  return owned.length === 1 && owned[0]!.credentialId === credentialId;
}

/**
 * The application's synced-or-device-bound policy, on the BE flag the verified authenticator data carries
 * (fixed for the credential's life, WebAuthn L3 §6.1.3). Checked after the signature verified, before
 * anything is stored.
 */
function expectationFor(ctx: CeremonyContext, ceremony: CeremonyRecord): RegistrationExpectation {
  const app = ctx.application;
  return {
    ...clientDataExpectation(ctx, ceremony),
    algorithms: app.algorithms,
    // Steps 23-24: the application's trust policy, including its AAGUID allow and deny lists.
    trust: app.trust,
    now: new Date(ctx.deps.runtime.now()),
  };
}

function credentialRecord(
  ctx: CeremonyContext,
  ceremony: CeremonyRecord,
  verified: VerifiedRegistration,
  request: AttestationResultRequest,
): CredentialRecord {
  return {
    clientId: ctx.clientId,
    credentialId: encodeBase64url(verified.credentialId),
    userHandle: ceremony.userHandle,
    username: ceremony.username,
    publicKey: verified.publicKey.cose,
    algorithm: verified.publicKey.alg,
    signCount: verified.signCount,
    transports: request.response.transports ?? [],
    aaguid: verified.aaguid,
    attestationFormat: verified.fmt,
    attestationType: verified.attestationType,
    attestationTrusted: verified.attestationTrusted,
    ...(verified.aaguidProven && { aaguidProven: true }),
    // Stored as fact only when a trusted attestation proved the AAGUID it was looked up by.
    authenticatorName: verified.aaguidProven ? verified.authenticatorName : null,
    backupEligible: verified.flags.be,
    backupState: verified.flags.bs,
    userVerified: verified.flags.uv,
    residentKey: residentKeyOf(request.extensions),
    ...(ceremony.displayName !== undefined && { displayName: ceremony.displayName }),
    cloneWarning: false,
    createdAt: ctx.deps.runtime.now(),
    lastUsedAt: null,
  };
}

/** credProps.rk as the client reported it (a client extension output, not signed), or null. */
function residentKeyOf(extensions: Readonly<Record<string, unknown>>): boolean | null {
  const credProps = extensions.credProps;
  if (typeof credProps !== 'object' || credProps === null) return null;
  const rk = (credProps as Record<string, unknown>).rk;
  return typeof rk === 'boolean' ? rk : null;
}
