// POST /api/assertion/result: verifies an authentication (WebAuthn L3 §7.2, in src/webauthn/authentication.ts)
// against the ceremony its challenge names. Standard: the credential must be one the options offered and
// stored for this application; its counter and flags are updated with a compare-and-set. Local: the key
// comes from the sealed blob in extensions.localhost, and nothing is written anywhere. A sign-in without a
// user name (§7.2 step 6, "user not identified before the ceremony") finds the credential by its id within
// the application and requires response.userHandle to be its owner's.

import type { AssertionResultFields } from '../schemas/answers.js';
import { FidoError } from '../errors/catalogue.js';
import type { CeremonyRecord, CredentialRecord } from '../stores/types.js';
import { encodeBase64url } from '../util/base64url.js';
import { verifyAuthentication } from '../webauthn/authentication.js';
import { parseClientData } from '../webauthn/client-data.js';
import { parseAuthentication } from '../webauthn/parse.js';
import type {
  AuthenticationExpectation,
  ParsedAuthentication,
  StoredCredentialView,
  VerifiedAuthentication,
} from '../webauthn/types.js';
import { type CeremonyContext, traced } from './context.js';
import { standInRecords } from './fake-credential.js';
import { openLocalCredential, recordFromLocalCredential } from './local-blob.js';
import { authenticationFields, type CeremonyFacts } from './outcome.js';
import type { AssertionResultRequest } from './inputs.js';
import { claimedVariant, clientDataExpectation, takeCeremony } from './session.js';
import { acceptedSignals, unknownCredentialSignal } from './signals.js';
import { issueCredentialsToken } from './credentials-token.js';
import { compromisedPolicy, reportedStatus, reportFailedSignIn, signInMessages } from './events.js';

export async function assertionResult(
  ctx: CeremonyContext,
  request: AssertionResultRequest,
): Promise<AssertionResultFields> {
  const variant = claimedVariant(ctx, request.localMarker, 'authentication');
  const clientData = parseClientData(request.response.clientDataJSON);
  // From here on the ceremony is consumed, whether verification then succeeds or fails.
  const ceremony = await takeCeremony(ctx, clientData.challenge, 'authentication', variant);
  // What the options read of the user's credentials (standard, by name), taken whatever follows.
  const snapshot = ctx.snapshots.take(ctx.clientId, ceremony.challenge, ctx.deps.runtime.now());
  const parsed = parseAuthentication(request, clientData);
  const credentialId = encodeBase64url(parsed.credentialId);
  ctx.noteSubject({ username: ceremony.username, credentialId });
  // §7.2 step 6, user not identified before the ceremony: only the user handle says whose credential this is.
  const claimedHandle = ceremony.discoverable === true ? requiredUserHandle(parsed) : undefined;

  if (variant === 'local') {
    // The blob is the only record of the credential. The counter cannot be tracked without storage: the
    // stored counter counts as 0, so any counter is accepted (docs/api.md, docs/local-variant.md).
    const local = openLocalCredential(request.localMarker, ctx.deps.secrets.localBlobKeys, {
      clientId: ctx.clientId,
      credentialId,
      userHandle: claimedHandle ?? ceremony.userHandle,
    });
    ctx.noteSubject({ username: local.username });
    const view = credentialView(
      ctx,
      credentialId,
      local.publicKey,
      local.algorithm,
      0,
      local.userHandle,
      local.backupEligible,
    );
    const verified = traced(ctx, 'webauthn.verify_authentication', () =>
      verifyAuthentication(parsed, expectationFor(ctx, ceremony, view)),
    );
    checkAuthenticatorStatus(ctx, local.aaguid);
    // A blob carries no mark: the status the loaded metadata reports now for its AAGUID stands in for one.
    const authenticatorStatus = compromisedPolicy(ctx, reportedStatus(ctx, local.aaguid));
    if (authenticatorStatus !== undefined) ctx.noteSubject({ authenticatorStatus });
    const fields = authenticationFields(recordFromLocalCredential(local), factsOf(verified, request));
    return authenticatorStatus === undefined ? fields : { ...fields, authenticatorStatus };
  }

  const found =
    claimedHandle === undefined
      ? await offeredCredential(ctx, ceremony, credentialId, snapshot)
      : await applicationCredential(ctx, credentialId, claimedHandle);
  const answer = await signIn(ctx, request, ceremony, parsed, found);
  if (answer !== WRITE_LOST) return answer;
  if (found.fromSnapshot === true) {
    // The row changed since the options read it (another sign-in, a deletion, a status mark): decide again
    // on what is stored now.
    const again = await signIn(ctx, request, ceremony, parsed, await offeredCredential(ctx, ceremony, credentialId));
    if (again !== WRITE_LOST) return again;
  }
  // Another authentication with this credential changed the counter since we read it.
  throw new FidoError(
    'SIGNATURE_COUNTER_NOT_INCREASED',
    'A concurrent authentication with this credential was accepted first.',
  );
}

/** What signIn answers when its compare-and-set found the row changed since it was read (or gone). */
const WRITE_LOST = Symbol('write lost');

/**
 * §7.2 from the stored credential on (steps 6 and 14–21 in verifyAuthentication), the policies, and the
 * compare-and-set that records the use: the answer, or WRITE_LOST when the row is no longer what was read.
 */
async function signIn(
  ctx: CeremonyContext,
  request: AssertionResultRequest,
  ceremony: CeremonyRecord,
  parsed: ParsedAuthentication,
  found: Found,
): Promise<AssertionResultFields | typeof WRITE_LOST> {
  const { stored, owned } = found;
  const { credentialId } = stored;
  ctx.noteSubject({ username: stored.username });
  const view = credentialView(
    ctx,
    credentialId,
    stored.publicKey,
    stored.algorithm,
    stored.signCount,
    stored.userHandle,
    stored.backupEligible,
  );
  // Step 6 is in verifyAuthentication too: a user handle present must be the stored owner's.
  let verified: VerifiedAuthentication;
  let authenticatorStatus: string | undefined;
  try {
    verified = traced(ctx, 'webauthn.verify_authentication', () =>
      verifyAuthentication(parsed, expectationFor(ctx, ceremony, view)),
    );
    // The stand-in offered to an unknown user was verified above like a real credential, against the dummy
    // key, so it failed as a real credential with a bad signature does (same name, status and cost). Not
    // reached: no one holds the dummy key's private key.
    if (found.standIn === true) throw new FidoError('ASSERTION_SIGNATURE_VERIFICATION_FAIL');
    checkAuthenticatorStatus(ctx, stored.aaguid);
    authenticatorStatus = compromisedPolicy(ctx, stored.authenticatorStatus);
  } catch (error) {
    // A counter regression or a policy refusal is reported to the application's webhooks (only after the
    // signature verified: the stand-in never gets here with a signature, and a bad signature is noise).
    if (found.standIn !== true) await reportFailedSignIn(ctx, stored, error);
    throw error;
  }
  if (authenticatorStatus !== undefined) ctx.noteSubject({ authenticatorStatus });
  const events = signInMessages(
    ctx,
    stored,
    { backupState: verified.flags.bs, userVerified: verified.flags.uv },
    authenticatorStatus,
  );
  const written = await ctx.deps.credentials.recordUse(
    ctx.clientId,
    credentialId,
    {
      expectedSignCount: stored.signCount,
      expectedAuthenticatorStatus: stored.authenticatorStatus ?? null,
      expectedCreatedAt: stored.createdAt,
      // Under the `warn` policy a counter that went backwards is accepted, never stored lower.
      signCount: Math.max(stored.signCount, verified.signCount),
      // BE and BS as this authentication reported them, together (step 17 refused BS without BE).
      backupEligible: verified.flags.be,
      backupState: verified.flags.bs,
      userVerified: verified.flags.uv,
      cloneWarning: stored.cloneWarning || verified.cloneWarning,
      usedAt: ctx.deps.runtime.now(),
    },
    events,
  );
  if (!written) return WRITE_LOST;
  if (verified.backupEligibilityChanged) {
    // Recorded, not failed (decisions.md): the audit log says when a credential's backup eligibility changed.
    ctx.noteSubject({ backupEligibilityChange: { from: stored.backupEligible, to: verified.flags.be } });
  }
  if (verified.cloneWarning) {
    ctx.deps.log.warn(
      { clientId: ctx.clientId, credentialId },
      'signature counter did not increase; accepted under the warn policy',
    );
  }
  return {
    ...authenticationFields(stored, factsOf(verified, request)),
    ...(authenticatorStatus === undefined ? {} : { authenticatorStatus }),
    signals: acceptedSignals(ctx.application.domain, stored, owned),
    credentialsToken: issueCredentialsToken(
      ctx.deps.secrets.userHandleKey,
      ctx.clientId,
      stored.userHandle,
      ctx.deps.runtime.now(),
    ),
  };
}

function factsOf(verified: VerifiedAuthentication, request: AssertionResultRequest): CeremonyFacts {
  return { flags: verified.flags, signCount: verified.signCount, attachment: request.attachment };
}

/** A sign-in without a user name must say whose credential signed: the user handle, as base64url. */
function requiredUserHandle(parsed: ParsedAuthentication): string {
  if (parsed.userHandle === null) {
    throw new FidoError(
      'USER_HANDLE_MISSING',
      'A sign-in without a user name needs response.userHandle: sign in with a discoverable credential (passkey).',
    );
  }
  return encodeBase64url(parsed.userHandle);
}

/**
 * The credential that signed and all of its owner's credentials (the signals of the answer): one store read, `listByUser`, on the path of every successful sign-in.
 */
interface Found {
  readonly stored: CredentialRecord;
  /** All credentials of the credential's owner (the signals of the answer). */
  readonly owned: readonly CredentialRecord[];
  /** The stand-in offered to a user without credentials (fake-credential.ts standInRecords). */
  readonly standIn?: true;
  /** Read by the options of the ceremony, not now (credential-snapshots.ts): the write confirms it. */
  readonly fromSnapshot?: true;
}

/**
 * Sign-in without a user name: the credential must be one of the claimed user's (one store read, whoever
 * the handle names). A credential id the claimed user does not have fails as an unknown one does, with
 * signals.unknownCredential, whether or not another user of the application has it: the user handle is not
 * signed, so answering otherwise would tell a caller with a random handle which credential ids exist
 * (docs/decisions.md "Sign-in without a user name: one answer for an id the user does not have").
 */
async function applicationCredential(
  ctx: CeremonyContext,
  credentialId: string,
  claimedHandle: string,
): Promise<Found> {
  const owned = await ctx.deps.credentials.listByUser(ctx.clientId, claimedHandle);
  const own = owned.find((c) => c.credentialId === credentialId);
  if (own) return { stored: own, owned };
  throw new FidoError('CREDENTIAL_ID_NOT_FOUND', 'No credential with this id is registered for this user handle.', {
    fields: unknownCredentialSignal(ctx.application.domain, credentialId),
  });
}

/**
 * The credential must be one the options offered, and stored for this application and user; or the
 * stand-in the options offered to a user without credentials (fake-credential.ts). Never a signal: a
 * sign-in by name must not say which credentials exist (anti-enumeration). From the options' snapshot
 * when there is one (the offered ids are its ids), else one store read.
 */
async function offeredCredential(
  ctx: CeremonyContext,
  ceremony: CeremonyRecord,
  credentialId: string,
  snapshot?: readonly CredentialRecord[],
): Promise<Found> {
  if (!(ceremony.allowCredentials ?? []).includes(credentialId)) {
    throw new FidoError('CREDENTIAL_ID_NOT_FOUND', 'The credential was not offered in the options of this challenge.');
  }
  const owned = snapshot ?? (await ctx.deps.credentials.listByUser(ctx.clientId, ceremony.userHandle));
  const stored = owned.find((c) => c.credentialId === credentialId);
  if (stored) return snapshot === undefined ? { stored, owned } : { stored, owned, fromSnapshot: true };
  const standIn = standInRecords(ctx.deps.secrets.userHandleKey, ctx.clientId, ceremony.username, ceremony.userHandle);
  if (standIn[0]!.credentialId === credentialId) return { stored: standIn[0]!, owned: standIn, standIn: true };
  throw new FidoError('CREDENTIAL_ID_NOT_FOUND');
}

/**
 * The application's metadata policy at authentication (TrustEvaluator.checkAuthentication): refuses, with
 * AUTHENTICATOR_STATUS_NOT_ACCEPTED, a credential whose authenticator model metadata now reports compromised.
 * Asked after the signature verified (only the credential's holder learns the reason) and before anything
 * is written.
 */
function checkAuthenticatorStatus(ctx: CeremonyContext, aaguid: string): void {
  ctx.application.trust.checkAuthentication?.({ aaguid, now: new Date(ctx.deps.runtime.now()) });
}

function credentialView(
  ctx: CeremonyContext,
  credentialId: string,
  cose: Uint8Array,
  algorithm: number,
  signCount: number,
  userHandle: string,
  backupEligible: boolean,
): StoredCredentialView {
  return {
    publicKey: ctx.keys.get(ctx.clientId, credentialId, cose),
    algorithm,
    signCount,
    userHandle,
    backupEligible,
  };
}

function expectationFor(
  ctx: CeremonyContext,
  ceremony: CeremonyRecord,
  credential: StoredCredentialView,
): AuthenticationExpectation {
  return {
    ...clientDataExpectation(ctx, ceremony),
    credential,
    counterPolicy: ctx.application.counterPolicy,
    backupEligibility: ctx.application.backupEligibility,
  };
}
