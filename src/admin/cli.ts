// `passkey-server admin …`: the admin operations from the command line (same code and audit as the admin
// API, actor `cli:<user>`), and the only way to make admin tokens. Output is JSON (one document, or JSON
// lines for `audit export`), so it scripts well. Exit codes: 0 done, 1 failed, 2 called wrongly.
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { toJsonLines } from '../audit/events.js';
import type { AuditLog } from '../audit/log.js';
import { AdminError } from './errors.js';
import type { Actor, AdminActions } from './actions.js';
import type { AdminTokenStore } from './tokens.js';
import type { RelaySecretAdmin } from './relay-secret-admin.js';
import { RELAY_SECRET_USAGE, relaySecretCommand } from './relay-secrets-cli.js';
import { tokenCommand } from './token-cli.js';
import { exportCommand, importCommand, type TransferIo } from './transfer-cli.js';

export type AdminCliIo = TransferIo;

export interface AdminCliDeps {
  /** The token file store of the configuration given with --config (no database needed for `admin token …`). */
  readonly tokens: (configFile: string | undefined) => Promise<AdminTokenStore>;
  /** Opens the stores the other commands need (from --config); `close` is called when the command is done. */
  readonly open: (configFile: string | undefined) => Promise<{
    readonly actions: AdminActions;
    readonly audit: AuditLog;
    readonly relaySecrets: RelaySecretAdmin;
    close(): Promise<void>;
  }>;
  /** Defaults to `cli:<os user name>`. */
  readonly actor?: string;
}

export const ADMIN_USAGE = `passkey-server admin <command> [--config <file.json>]

  token create <name>                 make an admin token (printed once; only its hash is stored)
  token list | token revoke <id>

  app list | app show <clientId>
  app create --name <n> --domain <d> [--origin <o>]... [--local-origin <o>]... [--variant standard|local]...
             [--json '<application JSON>']
  app update <clientId> [--name <n>] [--domain <d>] [--origin <o>]... [--local-origin <o>]... [--variant <v>]...
             [--json '<fields to change>']
  app approve|unapprove|disable|enable|delete <clientId>
  app post-quantum <clientId>          how many users have a post-quantum (ML-DSA) passkey, and how many such passkeys

  credential list <clientId> [--username <u> | --user-handle <h>] [--limit <n>] [--after <id>]
  credential show|delete <clientId> <credentialId>
  credential delete <clientId> (--username <user#domain> | --user-handle <h>)   every credential of that user
  credential rename <clientId> <credentialId> (<nickname> | --clear)
  credential import <clientId> --from <format> <file|-> [--dry-run]
                                      formats: passkey-server, simplewebauthn, keycloak, hanko, line-fido2-server;
                                      the report on standard output; exit 1 when a record was refused
  credential export <clientId> [--to passkey-server|hanko] [--output <file>]   JSON Lines, or Hanko's JSON list (standard output by default)

${RELAY_SECRET_USAGE}
  audit list|export [--since <time>] [--until <time>] [--client-id <id>] [--action <a>] [--result ok|failed] [--limit <n>]
`;

class Usage extends Error {}

const OPTIONS = {
  config: { type: 'string' },
  name: { type: 'string' },
  domain: { type: 'string' },
  origin: { type: 'string', multiple: true },
  'local-origin': { type: 'string', multiple: true },
  variant: { type: 'string', multiple: true },
  json: { type: 'string' },
  username: { type: 'string' },
  'user-handle': { type: 'string' },
  limit: { type: 'string' },
  after: { type: 'string' },
  clear: { type: 'boolean' },
  since: { type: 'string' },
  until: { type: 'string' },
  'client-id': { type: 'string' },
  action: { type: 'string' },
  result: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  output: { type: 'string' },
  'dry-run': { type: 'boolean' },
} as const;

export async function runAdminCli(args: readonly string[], io: AdminCliIo, deps: AdminCliDeps): Promise<number> {
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    });
    const [group, command, ...rest] = positionals;
    const print = (value: unknown) => io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    const usage = (message: string) => new Usage(message);
    if (group === 'token') return await tokenCommand(command, rest, await deps.tokens(values.config), print, usage);
    if (!['app', 'credential', 'relay-secret', 'audit'].includes(group ?? ''))
      throw new Usage(group === undefined ? 'which command?' : `unknown command "${group}"`);
    const actor: Actor = { name: deps.actor ?? `cli:${safeUser()}` };
    const opened = await deps.open(values.config);
    try {
      if (group === 'credential' && command === 'import')
        return await importCommand(rest, values, opened.actions, actor, io, usage);
      if (group === 'credential' && command === 'export')
        return await exportCommand(rest, values, opened.actions, actor, io, usage);
      if (group === 'app') await appCommand(command, rest, values, opened.actions, actor, print);
      else if (group === 'credential') await credentialCommand(command, rest, values, opened.actions, actor, print);
      else if (group === 'relay-secret')
        await relaySecretCommand(command, rest, opened.relaySecrets, actor, print, usage);
      else await auditCommand(command, rest, values, opened.audit, io, print);
    } finally {
      await opened.close();
    }
    return 0;
  } catch (error) {
    if (
      error instanceof Usage ||
      (error instanceof Error &&
        'code' in error &&
        String((error as { code: unknown }).code).startsWith('ERR_PARSE_ARGS'))
    ) {
      io.stderr.write(`${error.message}\n\n${ADMIN_USAGE}`);
      return 2;
    }
    if (error instanceof AdminError) {
      io.stderr.write(`${error.code}: ${error.message}\n${(error.problems ?? []).map((p) => `  - ${p}\n`).join('')}`);
      return 1;
    }
    io.stderr.write(`failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function want(rest: readonly string[], count: number, names: string): string[] {
  if (rest.length !== count) throw new Usage(`expected ${names}`);
  return [...rest];
}

/** Application fields from the flags and --json (flags win). */
function applicationFields(values: Values): Record<string, unknown> {
  let fields: Record<string, unknown> = {};
  if (values.json !== undefined) {
    try {
      fields = JSON.parse(values.json) as Record<string, unknown>;
    } catch {
      throw new Usage('--json is not valid JSON');
    }
    if (typeof fields !== 'object' || fields === null || Array.isArray(fields))
      throw new Usage('--json must be a JSON object');
  }
  if (values.name !== undefined) fields.name = values.name;
  if (values.domain !== undefined) fields.domain = values.domain;
  if (values.origin !== undefined) fields.origins = values.origin;
  if (values['local-origin'] !== undefined) fields.localOrigins = values['local-origin'];
  if (values.variant !== undefined) fields.variants = values.variant;
  return fields;
}

async function appCommand(
  command: string | undefined,
  rest: readonly string[],
  values: Values,
  actions: AdminActions,
  actor: Actor,
  print: (v: unknown) => void,
): Promise<void> {
  switch (command) {
    case 'list':
      want(rest, 0, 'no argument');
      return void print({ applications: await actions.listApplications() });
    case 'show':
      return void print(await actions.getApplication(want(rest, 1, 'a Client ID')[0]!));
    case 'create':
      want(rest, 0, 'flags only');
      return void print(await actions.createApplication(actor, applicationFields(values)));
    case 'update':
      return void print(
        await actions.updateApplication(actor, want(rest, 1, 'a Client ID')[0]!, applicationFields(values)),
      );
    case 'approve':
    case 'unapprove':
    case 'disable':
    case 'enable':
      return void print(await actions[command](actor, want(rest, 1, 'a Client ID')[0]!));
    case 'post-quantum':
      return void print(await actions.postQuantumUsage(want(rest, 1, 'a Client ID')[0]!));
    case 'delete':
      return void print(await actions.deleteApplication(actor, want(rest, 1, 'a Client ID')[0]!));
    default:
      throw new Usage('app list|show|create|update|approve|unapprove|disable|enable|delete|post-quantum');
  }
}

async function credentialCommand(
  command: string | undefined,
  rest: readonly string[],
  values: Values,
  actions: AdminActions,
  actor: Actor,
  print: (v: unknown) => void,
): Promise<void> {
  switch (command) {
    case 'list': {
      const [clientId] = want(rest, 1, 'a Client ID');
      const filter: { username?: string; userHandle?: string; limit?: number; after?: string } = {};
      if (values.username !== undefined) filter.username = values.username;
      if (values['user-handle'] !== undefined) filter.userHandle = values['user-handle'];
      if (values.after !== undefined) filter.after = values.after;
      if (values.limit !== undefined) filter.limit = positiveInteger('--limit', values.limit);
      return void print(await actions.listCredentials(clientId!, filter));
    }
    case 'show': {
      const [c, id] = want(rest, 2, 'a Client ID and a credential id');
      return void print(await actions.getCredential(c!, id!));
    }
    case 'delete': {
      if (values.username !== undefined || values['user-handle'] !== undefined) {
        const [c] = want(rest, 1, 'a Client ID (with --username or --user-handle)');
        return void print(
          await actions.deleteUserCredentials(actor, c!, {
            ...(values.username === undefined ? {} : { username: values.username }),
            ...(values['user-handle'] === undefined ? {} : { userHandle: values['user-handle'] }),
          }),
        );
      }
      const [c, id] = want(rest, 2, 'a Client ID and a credential id');
      return void print(await actions.deleteCredential(actor, c!, id!));
    }
    case 'rename': {
      if (values.clear) {
        const [c, id] = want(rest, 2, 'a Client ID and a credential id (with --clear)');
        return void print(await actions.renameCredential(actor, c!, id!, null));
      }
      const [c, id, nickname] = want(rest, 3, 'a Client ID, a credential id and a nickname');
      return void print(await actions.renameCredential(actor, c!, id!, nickname));
    }
    default:
      throw new Usage('credential list|show|rename|delete|import|export');
  }
}

async function auditCommand(
  command: string | undefined,
  rest: readonly string[],
  values: Values,
  audit: AuditLog,
  io: AdminCliIo,
  print: (v: unknown) => void,
): Promise<void> {
  want(rest, 0, 'flags only');
  if (command !== 'list' && command !== 'export') throw new Usage('audit list|export');
  const time = (flag: string, text: string | undefined): number | undefined => {
    if (text === undefined) return undefined;
    const at = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
    if (!Number.isFinite(at)) throw new Usage(`${flag}: an ISO 8601 time or epoch milliseconds`);
    return at;
  };
  if (values.result !== undefined && values.result !== 'ok' && values.result !== 'failed')
    throw new Usage('--result: ok or failed');
  const since = time('--since', values.since);
  const until = time('--until', values.until);
  const events = await audit.query({
    limit:
      values.limit === undefined ? (command === 'export' ? 1_000_000 : 100) : positiveInteger('--limit', values.limit),
    ...(since !== undefined && { since }),
    ...(until !== undefined && { until }),
    ...(values['client-id'] !== undefined && { clientId: values['client-id'] }),
    ...(values.action !== undefined && { action: values.action }),
    ...(values.result !== undefined && { result: values.result as 'ok' | 'failed' }),
  });
  if (command === 'export') io.stdout.write(toJsonLines(events));
  else print({ events });
}

function positiveInteger(flag: string, text: string): number {
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1) throw new Usage(`${flag}: a positive integer`);
  return Number(text);
}

function safeUser(): string {
  try {
    return userInfo().username || 'unknown';
  } catch {
    return 'unknown';
  }
}
