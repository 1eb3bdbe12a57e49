// What every admin action shares (composed, not inherited: ActionScope is given to each part): its dependencies, the application it names (APPLICATION_NOT_FOUND when
// none), the user a call names, the webhook messages a change sends, and the audit of every change.
import type { AuditLog } from '../audit/log.js';
import { userHandleFor } from '../ceremonies/user-handle.js';
import type { ApplicationRecord, ApplicationStore, CredentialStore, OutboxMessage } from '../stores/types.js';
import type { Runtime } from '../util/runtime.js';
import type { WebhookUrlRules } from '../config/webhook-urls.js';
import type { ResolveHost } from '../webhooks/destination.js';
import type { WebhookEventData } from '../schemas/webhook-events.js';
import { endpointsOf, webhookMessages, type WebhookEventType } from '../webhooks/events.js';
import { type Actor, audited, type Note } from './audited.js';
import { AdminError } from './errors.js';

export interface AdminDeps {
  readonly applications: ApplicationStore;
  readonly credentials: CredentialStore;
  readonly audit: AuditLog;
  readonly runtime: Runtime;
  /** Told of every application change (the directory's cache drops it at once); awaited; `deleted`: it went. */
  readonly onApplicationChange?: (clientId: string, deleted?: true) => unknown;
  /** secrets.userHandleKey: lets credentials be listed by `username` (derives the user handle). */
  readonly userHandleKey?: Buffer;
  /** Relative file paths in application bodies (trust anchors, metadata) resolve against this folder. */
  readonly baseDir?: string;
  /** `webhookDelivery`'s URL rules: an application body's webhook URLs follow the config file's (absent: strict). */
  readonly webhookRules?: WebhookUrlRules;
  /** Resolves a webhook URL's host when an application body sets it (default: the system's resolver). */
  readonly resolveHost?: ResolveHost;
  /**
   * Marks the application's stored passkeys of models its metadata reports compromised, as a metadata reload
   * does (applications/compromised.ts markStoredApplications); awaited after enabling or changing it. Never rejects.
   */
  readonly markCompromised?: (clientId: string) => Promise<unknown>;
  /** The post-quantum algorithms the …/post-quantum count looks for (webauthn/cose.ts's, passed by compose/). */
  readonly postQuantumAlgorithms: readonly number[];
}

/** What the application actions (actions.ts) and the credential actions (credential-actions.ts) share. */
export class ActionScope {
  constructor(readonly deps: AdminDeps) {}

  /**
   * The user a call names: `userHandle`, or the one of `username` (kept by an import, else derived). Both given must name the same
   * user (USER_MISMATCH otherwise: a call must never act on one user while it is recorded for another).
   */
  async userHandleOf(
    clientId: string,
    user: { readonly username?: string; readonly userHandle?: string },
  ): Promise<string | undefined> {
    if (user.username === undefined) return user.userHandle;
    if (!this.deps.userHandleKey)
      throw new AdminError(
        'INVALID_REQUEST',
        "naming a user by username needs the service's user-handle key; use userHandle",
        ['username: not available here'],
      );
    const handle = await userHandleFor(this.deps.credentials, this.deps.userHandleKey, clientId, user.username);
    if (user.userHandle !== undefined && user.userHandle !== handle) {
      throw new AdminError('USER_MISMATCH', undefined, [
        `userHandle: not the user handle of username ${JSON.stringify(user.username)} in this application`,
      ]);
    }
    return handle;
  }

  async record(clientId: string): Promise<ApplicationRecord> {
    const record = await this.deps.applications.get(clientId);
    if (!record) throw new AdminError('APPLICATION_NOT_FOUND');
    return record;
  }

  /** Builds the webhook messages of a change of the application's (its config file's webhooks and stored ones). */
  async messages(app: ApplicationRecord) {
    const endpoints = endpointsOf(app.config, await this.deps.credentials.webhooks.list(app.config.clientId));
    return <T extends WebhookEventType>(type: T, data: WebhookEventData<T>): OutboxMessage[] =>
      webhookMessages(endpoints, type, data, this.deps.runtime);
  }

  audited<T>(
    actor: Actor,
    action: string,
    facts: { clientId?: string; target?: string },
    run: (note: Note) => Promise<T>,
  ): Promise<T> {
    return audited(this.deps.audit, actor, action, facts, run);
  }
}
