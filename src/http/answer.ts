// What the app answers and reports: the envelope's headers (`answerOf`) and the outcome hook, told once per
// request (`reportOutcome`) with what was learnt of the request on the way (`Trace`).

import type { Variant } from '../service-config.js';
import type { OperationOutcome } from '../service.js';
import type { ServiceDeps } from '../ceremonies/deps.js';
import type { Reply } from './envelope.js';

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** What is known about the request so far, for the outcome hook and the logs. */
export interface Trace {
  operation: OperationOutcome['operation'];
  clientId: string | null;
  variant: Variant | null;
  username: string | null;
  credentialId: string | null;
  backupEligibilityChange: OperationOutcome['backupEligibilityChange'];
  authenticatorStatus: string | null;
}

export function newTrace(): Trace {
  return {
    operation: 'other',
    clientId: null,
    variant: null,
    username: null,
    credentialId: null,
    backupEligibilityChange: null,
    authenticatorStatus: null,
  };
}

export function answerOf(requestId: string, reply: Reply, closeConnection: boolean): Answer {
  const body = JSON.stringify(reply.body);
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'x-request-id': requestId,
    ...reply.headers,
  };
  if (closeConnection) headers.connection = 'close';
  return { status: reply.status, headers, body };
}

export function reportOutcome(
  deps: Pick<ServiceDeps, 'hooks' | 'runtime' | 'log'>,
  requestId: string,
  trace: Trace,
  reply: Reply,
  started: number,
  remoteAddress: string | null,
): void {
  const onOutcome = deps.hooks?.onOutcome;
  if (!onOutcome) return;
  const errorMessage = reply.body.errorMessage;
  try {
    onOutcome({
      operation: trace.operation,
      clientId: trace.clientId,
      variant: trace.variant,
      httpStatus: reply.status,
      errorName: Array.isArray(errorMessage) ? String(errorMessage[0]) : null,
      durationMs: Math.max(0, deps.runtime.now() - started),
      requestId,
      remoteAddress,
      username: trace.username,
      credentialId: trace.credentialId,
      backupEligibilityChange: trace.backupEligibilityChange,
      authenticatorStatus: trace.authenticatorStatus,
    });
  } catch (error) {
    // Instrumentation must never change an answer.
    deps.log.warn({ requestId, error: describe(error) }, 'outcome hook failed');
  }
}

export function describe(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return String(error);
}
