// Compromised authenticators (docs/attestation.md "Compromised authenticators"): after every metadata load,
// the passkeys of the models an application's FIDO metadata reports compromised are marked
// (applications/compromised.ts), with their webhook events and audit rows.
import { markCompromisedCredentials } from '../../applications/compromised.js';
import type { OperatorFeature } from '../feature-types.js';

export const compromisedAuthenticatorsFeature: OperatorFeature = {
  name: 'compromised-authenticators',
  configKeys: ['applications[].compromisedAuthenticators', 'applications[].attestation'],
  routes: [], // their list is the webhooks feature's (/admin/applications/{clientId}/marked-credentials)
  stores: ['applications', 'audit'],
  provides: ['markCompromised'],
  setup(context) {
    const { runtime, log } = context.input;
    const [applicationStore, directory] = [context.need('applicationStore'), context.need('applications')];
    const [credentials, audit] = [context.need('credentials'), context.need('audit')];
    /** Marks the passkeys of models the applications' metadata reports compromised; never rejects. */
    const markCompromised = async (): Promise<number> => {
      try {
        const withMetadata = (await applicationStore.list())
          .filter((record) => record.config.attestation.metadata !== null)
          .map((record) => record.config.clientId);
        return await markCompromisedCredentials({ directory, credentials, runtime, log, audit }, withMetadata);
      } catch (error) {
        log.error(
          {
            event: 'authenticator_status_marking_failed',
            error: error instanceof Error ? error.message : String(error),
          },
          'the passkeys of compromised authenticator models could not be marked; the next metadata reload tries again',
        );
        return 0;
      }
    };
    context.provide('markCompromised', markCompromised);
    return { start: () => void markCompromised() };
  },
};
