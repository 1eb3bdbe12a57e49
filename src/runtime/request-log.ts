// One structured log line per request of the four operations, from the http layer's outcome report: the
// request id (also in the answer's X-Request-Id header), operation, application, variant, status, error
// name, duration and caller address. Never a body, a header value, a username, a key or a challenge.
import type { ServiceHooks } from '../service.js';
import type { Logger } from '../util/log.js';

export function createRequestLogHooks(log: Logger): Required<Pick<ServiceHooks, 'onOutcome'>> {
  return {
    onOutcome(outcome) {
      const fields = {
        event: 'request',
        requestId: outcome.requestId,
        operation: outcome.operation,
        clientId: outcome.clientId,
        variant: outcome.variant,
        status: outcome.httpStatus,
        error: outcome.errorName,
        durationMs: outcome.durationMs,
        remoteAddress: outcome.remoteAddress,
      };
      // 5xx are ours: warn, so they stand out; the detail was logged by the http layer under the same id.
      if (outcome.httpStatus >= 500) log.warn(fields, 'request failed');
      else log.info(fields, 'request');
    },
  };
}
