// Ceremony outcomes into the audit log, from the http layer's one-report-per-request hook. Result calls are
// always recorded; options calls only when they fail (a successful options call is just a challenge handed
// out; the metrics count those). Requests that never named a known application are not recorded (the
// metrics and the request log have them), so that junk traffic cannot flood the audit log.
import type { OperationOutcome, ServiceHooks } from '../service.js';
import type { AuditLog } from './log.js';

const NO_APPLICATION = new Set([
  'CLIENT_ID_MISSING',
  'CLIENT_ID_MALFORMED',
  'CLIENT_ID_UNKNOWN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
]);

export interface AuditHooksOptions {
  /** `failures` (default): options calls only when they fail; `all`: every options call too. */
  readonly options?: 'failures' | 'all';
}

export function actionOf(operation: OperationOutcome['operation']): string | null {
  switch (operation) {
    case 'attestation/result':
      return 'ceremony.registration';
    case 'assertion/result':
      return 'ceremony.authentication';
    case 'attestation/options':
      return 'ceremony.registration.options';
    case 'assertion/options':
      return 'ceremony.authentication.options';
    // A user's own passkeys (POST /api/credentials/*): a deletion and a rename are always recorded, a
    // listing only when it fails.
    case 'credentials/delete':
      return 'credential.delete-own';
    case 'credentials/rename':
      return 'credential.rename-own';
    case 'credentials/list':
      return 'credential.list-own';
    default:
      return null;
  }
}

export function createAuditHooks(
  audit: AuditLog,
  options: AuditHooksOptions = {},
): Required<Pick<ServiceHooks, 'onOutcome'>> {
  const everyOptionsCall = options.options === 'all';
  return {
    onOutcome(outcome) {
      const action = actionOf(outcome.operation);
      if (action === null || outcome.clientId === null) return;
      if (outcome.errorName !== null && NO_APPLICATION.has(outcome.errorName)) return;
      const ok = outcome.errorName === null && outcome.httpStatus < 400;
      if (action.endsWith('.options') && ok && !everyOptionsCall) return;
      if (action === 'credential.list-own' && ok) return;
      void audit.record({
        actor: `client:${outcome.clientId}`,
        action,
        result: ok ? 'ok' : 'failed',
        clientId: outcome.clientId,
        subject: outcome.username ?? null,
        target: outcome.credentialId ?? null,
        errorName: outcome.errorName,
        requestId: outcome.requestId,
        remoteAddress: outcome.remoteAddress,
        details: {
          variant: outcome.variant,
          httpStatus: outcome.httpStatus,
          ...(outcome.authenticatorStatus ? { authenticatorStatus: outcome.authenticatorStatus } : {}),
        },
      });
      const change = outcome.backupEligibilityChange;
      if (ok && change) {
        // A credential that became (or stopped being) eligible for backup: synced passkeys do, and it is
        // recorded rather than failed (decisions.md), so an administrator can see when and for whom.
        void audit.record({
          actor: `client:${outcome.clientId}`,
          action: 'credential.backup-eligibility.change',
          result: 'ok',
          clientId: outcome.clientId,
          subject: outcome.username ?? null,
          target: outcome.credentialId ?? null,
          requestId: outcome.requestId,
          remoteAddress: outcome.remoteAddress,
          details: { from: change.from, to: change.to },
        });
      }
    },
  };
}
