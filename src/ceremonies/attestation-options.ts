// POST /api/attestation/options: the registration challenge (specification "Attestation options response",
// docs/decisions.md "Options responses"). Stores the ceremony the result call will take by its challenge.

import type { UserVerification } from '../service-config.js';
import { FidoError } from '../errors/catalogue.js';
import type { AttestationOptionsFields } from '../schemas/answers.js';
import type { CeremonyContext } from './context.js';
import { checkCredentialsToken } from './credentials-token.js';
import { beginOptionsCall, descriptorOf, hintsMember, type Descriptor } from './options-call.js';
import type { AttestationOptionsRequest, AuthenticatorSelection } from './inputs.js';
import { passkeyLimitReached } from './passkey-limit.js';

export async function attestationOptions(
  ctx: CeremonyContext,
  request: AttestationOptionsRequest,
): Promise<AttestationOptionsFields> {
  const { application: app, deps } = ctx;
  const { name, origin, userHandle, challenge } = await beginOptionsCall(ctx, request.username);
  const userVerification = effectiveUserVerification(
    request.authenticatorSelection?.userVerification,
    app.userVerification,
  );

  // The user's existing credentials, so the browser does not register the same authenticator twice:
  // standard, the stored ones; local, the ids (and transports) it remembers registering (no key). A user
  // without any gets [] in both variants.
  const existing: Descriptor[] =
    name.variant === 'standard'
      ? (await deps.credentials.listByUser(ctx.clientId, userHandle)).map(descriptorOf)
      : (await deps.challenges.listLocalCredentials(ctx.clientId, userHandle, deps.runtime.now())).map(descriptorOf);
  if (name.variant === 'standard' && existing.length > 0 && app.addPasskey === 'signed-in') {
    requireSignedIn(ctx, userHandle, request.credentialsToken);
  }
  // A user at the limit is told before the authenticator makes a key the result could not store (the result
  // checks again, atomically); after the sign-in check, which keeps the list from whoever may not see it.
  if (name.variant === 'standard' && existing.length >= app.maxPasskeysPerUser) {
    throw passkeyLimitReached(app.maxPasskeysPerUser);
  }
  const displayName = request.displayName ?? name.user;

  await deps.challenges.put({
    challenge,
    clientId: ctx.clientId,
    variant: name.variant,
    type: 'registration',
    username: name.username,
    userHandle,
    userVerification,
    origin,
    // Kept with the credential: signals.currentUserDetails repeats what the password manager was given.
    ...(name.variant === 'standard' && { displayName }),
    ...(request.mediation === 'conditional' && { conditional: true }),
    expiresAt: deps.runtime.now() + app.timeoutMs,
  });

  return {
    rp: { name: app.name, icon: app.icon, id: name.rpId },
    user: { name: name.username, icon: '', id: userHandle, displayName },
    challenge,
    pubKeyCredParams: app.algorithms.map((alg) => ({ type: 'public-key', alg })),
    timeout: app.timeoutMs,
    excludeCredentials: existing,
    authenticatorSelection: echoSelection(request.authenticatorSelection, app.userVerification),
    attestation: request.attestation ?? 'none',
    extensions: { ...request.extensions, credProps: true },
    ...hintsMember(request.hints, app),
    // Echoed so the page knows to call create({ mediation: 'conditional' }) (automatic upgrade).
    ...(request.mediation === 'conditional' && { mediation: request.mediation }),
  };
}

/**
 * `addPasskey: "signed-in"`: a name that already has a passkey gets another only with the credentials token
 * of that user's recent sign-in. Every way a token falls short is one refusal, SIGN_IN_REQUIRED (its detail
 * says which), thrown before a challenge is stored; the options failure is audited like any other.
 */
function requireSignedIn(ctx: CeremonyContext, userHandle: string, token: string | undefined): void {
  const signIn = 'sign in as this user first, then send the credentialsToken of that sign-in';
  if (token === undefined) throw new FidoError('SIGN_IN_REQUIRED', `credentialsToken is missing: ${signIn}.`);
  const { deps } = ctx;
  try {
    checkCredentialsToken(deps.secrets.userHandleKey, ctx.clientId, userHandle, token, deps.runtime.now());
  } catch (error) {
    if (!(error instanceof FidoError)) throw error;
    const why = error.code === 'CREDENTIALS_TOKEN_EXPIRED' ? 'has expired' : 'was not issued for this user';
    throw new FidoError('SIGN_IN_REQUIRED', `credentialsToken ${why}: ${signIn}.`);
  }
}

/** `required` wins from either side; otherwise what was asked, default `preferred`. */
export function effectiveUserVerification(
  requested: UserVerification | undefined,
  policy: UserVerification | null,
): UserVerification {
  if (policy === 'required' || requested === 'required') return 'required';
  return requested ?? 'preferred';
}

/**
 * Echoes authenticatorSelection as sent, with two additions: a request that says nothing about
 * discoverability (neither `residentKey` nor `requireResidentKey`) asks for a discoverable credential, a
 * passkey (`residentKey: "required"`, `requireResidentKey: true`), so sign-in without a name works after a
 * default registration; and an application whose policy requires user verification says so, because the
 * result will enforce it. A request may still ask for less (e.g. `residentKey: "discouraged"`).
 */
function echoSelection(
  sent: AuthenticatorSelection | undefined,
  policy: UserVerification | null,
): AuthenticatorSelection {
  const silent = sent?.residentKey === undefined && sent?.requireResidentKey === undefined;
  const selection: AuthenticatorSelection = silent
    ? { ...sent, residentKey: 'required', requireResidentKey: true }
    : { ...sent };
  if (policy === 'required') return { ...selection, userVerification: 'required' };
  return selection;
}
