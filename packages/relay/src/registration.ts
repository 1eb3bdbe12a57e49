// Who may register, when the integrator gives no `mayRegister` (spec point 6; docs/relay.md, "Who may
// register"): the user the session says is signed in, for their own name; and, with `allowSignUp`, a name
// that has no passkey yet (a new account). Everything else is refused, and a refusal the session alone
// decides sends nothing to the service.
import { failedEnvelope } from './errors.js';
import type { ResolvedRelayOptions } from './options.js';
import type { Body, Outcome } from './outcome.js';
import type { SessionView } from './session.js';

/** The options call under the default rule: the service's answer, or the relay's refusal. */
export async function mayRegisterByDefault(
  config: ResolvedRelayOptions,
  username: string,
  body: Body,
  view: SessionView,
  forward: (body: Body) => Promise<Outcome>,
): Promise<Outcome> {
  const { credentialsToken: _browsers, ...rest } = body;
  if (username === view.signedInUser) {
    // The owner adds a passkey. Their token goes along, for a service whose application asks for it
    // (`addPasskey: "signed-in"`); a token the browser sent never does.
    const token = view.credentials?.username === username ? view.credentials.credentialsToken : undefined;
    return forward(token === undefined ? rest : { ...rest, credentialsToken: token });
  }
  if (!config.allowSignUp) return refuse(config, username, view, 'not-signed-in');
  // Sign-up: only a name without a passkey. The relay's own store knows its local users' passkeys…
  if (config.localStore && (await config.localStore.list(username)).length > 0)
    return refuse(config, username, view, 'has-passkey');
  const outcome = await forward(rest);
  // …and the service lists the passkeys a name has in excludeCredentials (every stored one, standard;
  // the ids it remembers, local). The challenge it issued never reaches the browser and expires unused.
  const existing = outcome.body.excludeCredentials;
  if (outcome.body.status === 'ok' && (!Array.isArray(existing) || existing.length > 0))
    return refuse(config, username, view, 'has-passkey');
  return outcome;
}

function refuse(
  config: ResolvedRelayOptions,
  username: string,
  view: SessionView,
  why: 'not-signed-in' | 'has-passkey',
): Outcome {
  config.log?.warn({ username, signedInUser: view.signedInUser ?? null, why }, 'registration refused');
  return failedEnvelope(
    'REGISTRATION_NOT_ALLOWED',
    why === 'has-passkey'
      ? `${username} already has a passkey: sign in with it first, then add another one.`
      : `Sign in as ${username} first: only the signed-in user adds a passkey, to their own account.`,
  );
}
