// The webhook events the ceremonies report (src/webhooks/events.ts builds the messages; the stores write
// them with the change): a passkey created, used, updated (backup state) or deleted by its user, and a
// refused sign-in an operator acts on. Also the application's policy for a passkey whose authenticator
// model FIDO metadata marked compromised or revoked.
import { FidoError } from '../errors/catalogue.js';
import type { CredentialRecord, OutboxMessage } from '../stores/types.js';
import type { WebhookEventData } from '../schemas/webhook-events.js';
import { credentialData, webhookMessages, type WebhookEventType } from '../webhooks/events.js';
import type { CeremonyContext } from './context.js';

export function eventMessages<T extends WebhookEventType>(
  ctx: CeremonyContext,
  type: T,
  data: WebhookEventData<T>,
): OutboxMessage[] {
  return webhookMessages(ctx.application.webhookEndpoints, type, data, ctx.deps.runtime);
}

/** The failures of a verified sign-in an operator acts on, by error name: counter regression and policy refusals. */
const OPERATOR_FAILURES: Readonly<Record<string, WebhookEventData<'authentication.failed'>['reason']>> = {
  SIGNATURE_COUNTER_NOT_INCREASED: 'counter-regression',
  AUTHENTICATOR_STATUS_NOT_ACCEPTED: 'compromised-authenticator',
  BACKUP_ELIGIBILITY_REQUIRED: 'policy',
  BACKUP_ELIGIBILITY_NOT_ALLOWED: 'policy',
};

/**
 * Writes `authentication.failed` for an operator's failure (then the caller rethrows). The event is written
 * before the answer; a store that cannot take it is logged, never turned into another answer.
 */
export async function reportFailedSignIn(
  ctx: CeremonyContext,
  stored: CredentialRecord,
  error: unknown,
): Promise<void> {
  if (!(error instanceof FidoError)) return;
  const reason = OPERATOR_FAILURES[error.code];
  if (reason === undefined || ctx.application.webhookEndpoints === undefined) return;
  const messages = eventMessages(ctx, 'authentication.failed', {
    ...credentialData(stored),
    error: error.code,
    reason,
    ...(stored.authenticatorStatus ? { authenticatorStatus: stored.authenticatorStatus } : {}),
  });
  await ctx.deps.credentials.outbox.enqueue(messages).catch((failure: unknown) => {
    ctx.deps.log.error(
      { event: 'webhook_enqueue_failed', clientId: ctx.clientId, error: String(failure) },
      'the authentication.failed event could not be written',
    );
  });
}

/**
 * The application's policy for a passkey whose authenticator model is compromised or revoked (`status`: the
 * stored mark of the standard variant, the loaded metadata's status of the blob's AAGUID in the local one):
 * `refuse` (or `attestation.enforceStatusAtAuthentication`) fails with AUTHENTICATOR_STATUS_NOT_ACCEPTED;
 * `flag` (the default) accepts it and says so: the status is returned for the result and the audit.
 */
export function compromisedPolicy(ctx: CeremonyContext, status: string | null | undefined): string | undefined {
  if (status == null) return undefined;
  const app = ctx.application;
  if (app.compromisedAuthenticators === 'refuse' || app.attestation.enforceStatusAtAuthentication === true) {
    throw new FidoError(
      'AUTHENTICATOR_STATUS_NOT_ACCEPTED',
      `FIDO metadata reports this passkey's authenticator model as ${status}; the application refuses it: register a new passkey.`,
    );
  }
  return status;
}

/**
 * The status the application's loaded metadata reports now for `aaguid` when it is one a metadata load marks
 * stored passkeys with (compromised or revoked: TrustEvaluator.reportedStatuses), else undefined.
 */
export function reportedStatus(ctx: CeremonyContext, aaguid: string): string | undefined {
  return ctx.application.trust.reportedStatuses?.(new Date(ctx.deps.runtime.now())).get(aaguid);
}

/** What a successful sign-in reports: authentication.succeeded, and credential.updated when BS changed. */
export function signInMessages(
  ctx: CeremonyContext,
  stored: CredentialRecord,
  now: { readonly backupState: boolean; readonly userVerified: boolean },
  authenticatorStatus: string | undefined,
): OutboxMessage[] {
  if (ctx.application.webhookEndpoints === undefined) return [];
  const base = credentialData(stored);
  return [
    ...eventMessages(ctx, 'authentication.succeeded', {
      ...base,
      userVerified: now.userVerified,
      backupState: now.backupState,
      ...(authenticatorStatus === undefined ? {} : { authenticatorStatus }),
    }),
    ...(now.backupState === stored.backupState
      ? []
      : eventMessages(ctx, 'credential.updated', {
          ...base,
          changes: { backupState: { from: stored.backupState, to: now.backupState } },
        })),
  ];
}
