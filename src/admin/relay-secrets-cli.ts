// `passkey-server admin relay-secret create|list|revoke`: an application's relay secrets from the command
// line (the same code and audit as the admin API's, admin/relay-secret-admin.ts). `create` prints the secret once.
import type { Actor } from './audited.js';
import type { RelaySecretAdmin } from './relay-secret-admin.js';

/** Its lines of `passkey-server admin` usage. */
export const RELAY_SECRET_USAGE = `  relay-secret list <clientId>
  relay-secret create <clientId>       a new relay secret (printed once; only its SHA-256 is stored)
  relay-secret revoke <clientId> <id>  relays that send it are refused (the last one: every call, until a
                                       new one exists; a config file's: remove it there)
`;

export async function relaySecretCommand(
  command: string | undefined,
  rest: readonly string[],
  secrets: RelaySecretAdmin,
  actor: Actor,
  print: (value: unknown) => void,
  usage: (message: string) => Error,
): Promise<void> {
  const want = (count: number, names: string) => {
    if (rest.length !== count) throw usage(`expected ${names}`);
    return rest;
  };
  switch (command) {
    case 'list':
      return void print(await secrets.list(want(1, 'a Client ID')[0]!));
    case 'create': {
      const made = await secrets.create(actor, want(1, 'a Client ID')[0]!);
      return void print({
        ...made,
        note: 'Shown once: only its SHA-256 is stored. The relay sends it as "Authorization: Bearer <secret>" (PASSKEY_RELAY_SECRET).',
      });
    }
    case 'revoke': {
      const [clientId, id] = want(2, 'a Client ID and a relay secret id');
      return void print(await secrets.revoke(actor, clientId!, id!));
    }
    default:
      throw usage('relay-secret list|create|revoke');
  }
}
