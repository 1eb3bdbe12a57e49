// Compromised authenticators (docs/attestation.md "Compromised authenticators"): after every metadata load,
// and for one application when it is enabled or changed (the admin actions call it), the passkeys of the
// models an application's FIDO metadata reports compromised are marked (applications/compromised.ts), with
// their webhook events and audit rows.
import { markStoredApplications } from '../../applications/compromised.js';
import type { OperatorFeature } from '../feature-types.js';

export const compromisedAuthenticatorsFeature: OperatorFeature = {
  name: 'compromised-authenticators',
  configKeys: ['applications[].compromisedAuthenticators', 'applications[].attestation'],
  routes: [], // their list is the webhooks feature's (/admin/applications/{clientId}/marked-credentials)
  stores: ['applications', 'audit'],
  provides: ['markCompromised'],
  setup(context) {
    const { runtime, log } = context.input;
    const [store, directory] = [context.need('applicationStore'), context.need('applications')];
    const [credentials, audit] = [context.need('credentials'), context.need('audit')];
    const deps = { directory, store, credentials, runtime, log, audit };
    const markCompromised = (clientIds?: readonly string[]) => markStoredApplications(deps, clientIds);
    context.provide('markCompromised', markCompromised);
    return { start: () => void markCompromised() };
  },
};
