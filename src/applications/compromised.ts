// Compromised authenticators (issue 27; docs/attestation.md "Compromised authenticators"): after every
// metadata load (at start and at each reload), and for one application when it is enabled or changed (the
// admin API, the CLI, a config file the CLI seeds: issue 35), each enabled application's BLOB says which
// authenticator models are now compromised or revoked (FIDO MDS3 status reports); every stored credential of
// such a model is marked with the status, and each marked credential is reported to the application's
// webhooks (`authenticator.status-changed`) in the same transaction. Marking again with the same status
// changes nothing, so a reload of an unchanged BLOB reports nothing twice. The application's
// `compromisedAuthenticators` policy then decides the credential's next sign-in (ceremonies/events.ts).
import type { ApplicationDirectory } from '../ceremonies/deps.js';
import type { ApplicationStore, CredentialStore } from '../stores/types.js';
import type { Logger } from '../util/log.js';
import type { Runtime } from '../util/runtime.js';
import { credentialData, webhookMessages } from '../webhooks/events.js';

export interface MarkingDeps {
  readonly directory: ApplicationDirectory;
  readonly credentials: CredentialStore;
  readonly runtime: Pick<Runtime, 'now' | 'randomBytes'>;
  readonly log: Logger;
  /** The audit log (its `record`), told of each marking. */
  readonly audit?: {
    record(facts: {
      readonly actor: string;
      readonly action: string;
      readonly result: 'ok';
      readonly clientId: string;
      readonly target: string;
      readonly details: Readonly<Record<string, string | number>>;
    }): Promise<unknown>;
  };
}

/** Marks the credentials of `clientIds` whose model their metadata reports; resolves to how many were marked now. */
export async function markCompromisedCredentials(deps: MarkingDeps, clientIds: readonly string[]): Promise<number> {
  const { directory, credentials, runtime, log } = deps;
  let total = 0;
  for (const clientId of clientIds) {
    const application = await directory.find(clientId);
    const statuses = application?.trust.reportedStatuses?.(new Date(runtime.now()));
    if (application === undefined || statuses === undefined) continue;
    for (const [aaguid, status] of statuses) {
      const marked = await credentials.markAuthenticatorStatus(
        { clientId, aaguid, status, at: runtime.now() },
        (records) =>
          records.flatMap((record) =>
            webhookMessages(
              application.webhookEndpoints,
              'authenticator.status-changed',
              { ...credentialData(record), aaguid, status, authenticatorName: record.authenticatorName ?? null },
              runtime,
            ),
          ),
      );
      if (marked.length === 0) continue;
      total += marked.length;
      log.warn(
        { event: 'authenticator_status_marked', clientId, aaguid, status, credentials: marked.length },
        'FIDO metadata reports an authenticator model compromised or revoked: its stored passkeys are marked',
      );
      await deps.audit?.record({
        actor: 'system:metadata',
        action: 'authenticator.status-change',
        result: 'ok',
        clientId,
        target: aaguid,
        details: { status, credentials: marked.length },
      });
    }
  }
  return total;
}

/**
 * markCompromisedCredentials for `clientIds`, or (none given) for every stored application that names a
 * metadata BLOB. A disabled application is skipped (the directory does not find it): enabling it marks it.
 * Never rejects: a failure is logged, and the next load, enabling or change tries again.
 */
export async function markStoredApplications(
  deps: MarkingDeps & { readonly store: Pick<ApplicationStore, 'list'> },
  clientIds?: readonly string[],
): Promise<number> {
  try {
    const named =
      clientIds ??
      (await deps.store.list())
        .filter((record) => record.config.attestation.metadata !== null)
        .map((record) => record.config.clientId);
    return await markCompromisedCredentials(deps, named);
  } catch (error) {
    deps.log.error(
      { event: 'authenticator_status_marking_failed', error: error instanceof Error ? error.message : String(error) },
      'the passkeys of compromised authenticator models could not be marked; the next metadata reload tries again',
    );
    return 0;
  }
}
