// POST /api/assertion/options: the authentication challenge (specification "Assertion options response",
// docs/decisions.md "Options responses"). Stores the ceremony with the credential ids it offered. A username
// whose user part is empty (`#<domain>`, `#localhost`) starts a sign-in without a user name (docs/api.md).

import type { UserVerification } from '../service-config.js';
import type { AssertionOptionsFields } from '../schemas/answers.js';
import { FidoError } from '../errors/catalogue.js';
import type { CeremonyContext } from './context.js';
import { beginOptionsCall, descriptorOf, hintsMember, type Descriptor } from './options-call.js';
import type { AssertionOptionsRequest } from './inputs.js';
import { fakeCredentialFor, noteCredentialShapes, standInRecords } from './fake-credential.js';

export async function assertionOptions(
  ctx: CeremonyContext,
  request: AssertionOptionsRequest,
): Promise<AssertionOptionsFields> {
  const { application: app, deps } = ctx;
  const { name, origin, userHandle, challenge } = await beginOptionsCall(ctx, request.username, true);
  // Without a user name the browser offers whichever discoverable credential the user picks: the list stays
  // empty, and the answer is the same for everyone (it names no user to enumerate).
  const discoverable = name.user === '';
  if (discoverable) ctx.exemptFromAnswerFloor();
  const now = deps.runtime.now();
  const expiresAt = now + app.timeoutMs;
  const allowCredentials = discoverable
    ? []
    : name.variant === 'standard'
      ? await standardAllowList(ctx, name.username, userHandle, { challenge, now, expiresAt })
      : await localAllowList(ctx, name.username, userHandle);
  const userVerification: UserVerification =
    app.userVerification === 'required' ? 'required' : (request.userVerification ?? 'preferred');

  await deps.challenges.put({
    challenge,
    clientId: ctx.clientId,
    variant: name.variant,
    type: 'authentication',
    username: name.username,
    userHandle,
    userVerification,
    origin,
    allowCredentials: allowCredentials.map((d) => d.id),
    ...(discoverable && { discoverable: true }),
    expiresAt,
  });

  return {
    challenge,
    timeout: app.timeoutMs,
    rpId: name.rpId,
    allowCredentials,
    userVerification,
    extensions: { ...request.extensions },
    ...hintsMember(request.hints, app),
  };
}

/**
 * The user's credentials with their stored transports, kept for the result (credential-snapshots.ts). A
 * user without any gets ONE stable stand-in credential, so that the answer looks like a known user's
 * (docs/decisions.md), unless the application opted to reveal it.
 */
async function standardAllowList(
  ctx: CeremonyContext,
  username: string,
  userHandle: string,
  ceremony: { readonly challenge: string; readonly now: number; readonly expiresAt: number },
): Promise<Descriptor[]> {
  const stored = await ctx.deps.credentials.listByUser(ctx.clientId, userHandle);
  const known = stored.length > 0;
  if (!known && ctx.application.revealUnknownUsers) {
    throw new FidoError('CREDENTIAL_ID_NOT_FOUND', 'This user has no registered credential.');
  }
  // The result of this ceremony verifies against what was read here (credential-snapshots.ts); an unknown
  // user's empty list too, so that both results take the same steps.
  ctx.snapshots.keep(ctx.clientId, ceremony.challenge, stored, ceremony);
  // An unknown user's stand-in is made like a store's read of one credential (standInRecords) and mapped
  // by the same code: the same steps at the same cost as a registered user's one credential. Both note the
  // listed shapes; only a registered user's are learnt (`bench/enumeration.ts` measures the two paths).
  const key = ctx.deps.secrets.userHandleKey;
  const listed = known ? stored : standInRecords(key, ctx.clientId, username, userHandle);
  noteCredentialShapes(key, ctx.clientId, listed, known);
  return listed.map(descriptorOf);
}

/**
 * Local variant: the credential ids it remembers registering for this user (never a key: that travels in
 * the blob), so that a security key, which the browser finds only by its id, can sign in. A user it does
 * not remember (unknown, or forgotten: the list expires and is bounded) gets the stand-in, as in the
 * standard variant, shaped like the ids the local variant lists for registered users (their length and
 * transports, learnt from those lists in the local pool); an application that reveals unknown users gets
 * `[]` instead, which lets the browser offer any discoverable credential.
 */
async function localAllowList(ctx: CeremonyContext, username: string, userHandle: string): Promise<Descriptor[]> {
  const key = ctx.deps.secrets.userHandleKey;
  const remembered = await ctx.deps.challenges.listLocalCredentials(ctx.clientId, userHandle, ctx.deps.runtime.now());
  const known = remembered.length > 0;
  if (!known && ctx.application.revealUnknownUsers) return [];
  // Both paths note the listed shapes, as the standard variant's do; only a registered user's are learnt.
  const fake = known ? undefined : fakeCredentialFor(key, ctx.clientId, username, 'local');
  const listed = fake === undefined ? remembered : [{ credentialId: fake.id, transports: fake.transports }];
  noteCredentialShapes(key, ctx.clientId, listed, known, 'local');
  return listed.map(descriptorOf);
}
