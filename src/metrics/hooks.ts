// Turns the http layer's one-outcome-per-request report (ServiceHooks.onOutcome) into the service metrics:
// requests and outcomes per operation, application and error name, latency, and the ceremony funnel.
import type { OperationOutcome, ServiceHooks } from '../service.js';
import type { MetricsRegistry } from './registry.js';

/** Errors raised before the Client ID is known to be registered: their client_id label is not trusted. */
const UNTRUSTED_CLIENT_ERRORS = new Set([
  'CLIENT_ID_MISSING',
  'CLIENT_ID_MALFORMED',
  'CLIENT_ID_UNKNOWN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
]);

/** Label value for requests whose Client ID is missing, unregistered, or past the cardinality cap. */
export const UNKNOWN_CLIENT_LABEL = '_unknown';

export interface MetricsHooksOptions {
  /**
   * Whether a Client ID may become a label value (a registered application). Without it, the first
   * `maxClientLabels` distinct ids seen on non-identity outcomes are kept and later ones fold into `_unknown`.
   */
  readonly isKnownClient?: (clientId: string) => boolean;
  /** Cap on distinct client_id label values (defends the metrics against unbounded cardinality). */
  readonly maxClientLabels?: number;
}

export interface MetricsHooks extends Required<Pick<ServiceHooks, 'onOutcome'>> {}

const SECONDS_BUCKETS = [0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** Registers the service metric families on `registry` and returns the hook that feeds them. */
export function createMetricsHooks(registry: MetricsRegistry, options: MetricsHooksOptions = {}): MetricsHooks {
  const requests = registry.counter(
    'passkey_requests_total',
    'Requests answered, per operation, application (client_id), variant, outcome (ok|failed) and error name.',
    ['operation', 'client_id', 'variant', 'outcome', 'error'],
  );
  const duration = registry.histogram(
    'passkey_request_duration_seconds',
    'Time from request to answer, per operation, application and outcome.',
    ['operation', 'client_id', 'outcome'],
    SECONDS_BUCKETS,
  );
  const optionsIssued = registry.counter(
    'passkey_ceremony_options_issued_total',
    'Ceremony funnel: options answered ok (a challenge was issued), per ceremony and application.',
    ['ceremony', 'client_id'],
  );
  const results = registry.counter(
    'passkey_ceremony_results_total',
    'Ceremony funnel: result calls per ceremony, application and result (ok|failed).',
    ['ceremony', 'client_id', 'result'],
  );
  const limited = registry.counter(
    'passkey_rate_limited_total',
    'Requests refused with 429 RATE_LIMITED, per operation and application.',
    ['operation', 'client_id'],
  );

  const maxLabels = options.maxClientLabels ?? 500;
  const seen = new Set<string>();
  const clientLabel = (outcome: OperationOutcome): string => {
    const id = outcome.clientId;
    if (!id || (outcome.errorName !== null && UNTRUSTED_CLIENT_ERRORS.has(outcome.errorName)))
      return UNKNOWN_CLIENT_LABEL;
    if (options.isKnownClient) return options.isKnownClient(id) ? id : UNKNOWN_CLIENT_LABEL;
    if (seen.has(id)) return id;
    if (seen.size >= maxLabels) return UNKNOWN_CLIENT_LABEL;
    seen.add(id);
    return id;
  };

  return {
    onOutcome(outcome) {
      const client_id = clientLabel(outcome);
      const ok = outcome.errorName === null && outcome.httpStatus < 400;
      const outcomeLabel = ok ? 'ok' : 'failed';
      const operation = outcome.operation;
      requests.inc({
        operation,
        client_id,
        variant: outcome.variant ?? '',
        outcome: outcomeLabel,
        error: outcome.errorName ?? '',
      });
      duration.observe({ operation, client_id, outcome: outcomeLabel }, Math.max(0, outcome.durationMs) / 1000);
      if (outcome.errorName === 'RATE_LIMITED') limited.inc({ operation, client_id });
      const funnel = FUNNEL[operation];
      if (!funnel) return;
      if (funnel.step === 'options' && ok) optionsIssued.inc({ ceremony: funnel.ceremony, client_id });
      if (funnel.step === 'result') results.inc({ ceremony: funnel.ceremony, client_id, result: outcomeLabel });
    },
  };
}

interface FunnelStep {
  readonly ceremony: 'registration' | 'authentication';
  readonly step: 'options' | 'result';
}

/** Each operation's place in the ceremony funnel; a user's own passkeys and `other` (404, 405) are not in it. */
const FUNNEL: Readonly<Record<OperationOutcome['operation'], FunnelStep | null>> = {
  'attestation/options': { ceremony: 'registration', step: 'options' },
  'attestation/result': { ceremony: 'registration', step: 'result' },
  'assertion/options': { ceremony: 'authentication', step: 'options' },
  'assertion/result': { ceremony: 'authentication', step: 'result' },
  'credentials/list': null,
  'credentials/delete': null,
  'credentials/rename': null,
  other: null,
};
