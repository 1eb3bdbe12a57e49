// What the service's requests report, and the seams the operator features plug into (compose/service.ts
// wires them): the outcome of every request, the hooks on it and the tracer. What the HTTP app and the
// ceremonies receive (ServiceDeps, the application directory) is ceremonies/deps.ts.

/** What one operation call came to; reported once per request to `ServiceHooks.onOutcome`. */
export interface OperationOutcome {
  readonly operation:
    | 'attestation/options'
    | 'attestation/result'
    | 'assertion/options'
    | 'assertion/result'
    | 'credentials/list'
    | 'credentials/delete'
    | 'credentials/rename'
    | 'other';
  readonly clientId: string | null;
  readonly variant: 'standard' | 'local' | null;
  readonly httpStatus: number;
  /** null on success. */
  readonly errorName: string | null;
  readonly durationMs: number;
  readonly requestId: string;
  /** The caller's address as the socket reports it. */
  readonly remoteAddress: string | null;
  /** For the audit log, when known: the request's `username` and the credential id of a result call. */
  readonly username?: string | null;
  readonly credentialId?: string | null;
  /** A sign-in that changed the credential's stored backup eligibility (BE); absent or null otherwise. */
  readonly backupEligibilityChange?: { readonly from: boolean; readonly to: boolean } | null;
  /** A sign-in accepted (policy `flag`) with a passkey whose authenticator model metadata marked: the status. */
  readonly authenticatorStatus?: string | null;
}

/** Optional instrumentation (metrics, audit) and admission (rate limits), wired by compose/. */
export interface ServiceHooks {
  onOutcome?(outcome: OperationOutcome): void;
  /**
   * Admission; `allowed: false` answers 429 RATE_LIMITED with Retry-After. The HTTP app asks twice: with
   * `scope: 'address'` before anything of the request but its route is looked at (`clientId` is null when
   * User-agent names none: that request is refused with 400 after it was admitted), then with
   * `scope: 'application'` only once the application is known and the request passed its relay secret
   * check, so that calls without a valid secret never use up the application's bucket (docs/decisions.md
   * "Rate limits count what they protect"). Without `scope`, both at once.
   */
  admit?(request: {
    readonly clientId: string | null;
    readonly remoteAddress: string | null;
    readonly scope?: 'address' | 'application';
  }): Promise<{ readonly allowed: boolean; readonly retryAfterSeconds: number }>;
}

/** Attributes of a span: never a user name, a credential id or any other personal datum. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean>>;

/** The span of one request, for the HTTP app to describe before it ends. */
export interface RequestSpan {
  set(attributes: SpanAttributes): void;
}

/**
 * OpenTelemetry traces (runtime/tracing.ts), when the OTEL_* variables ask for them. Absent, nothing is
 * traced and no call is made: each use is one property check.
 */
export interface Tracer {
  /**
   * Runs `fn` inside a server span named `name` that continues the caller's W3C trace context
   * (`traceparent`, `tracestate`; a malformed one starts a new trace). The span ends when `fn` settles.
   */
  request<T>(
    name: string,
    carrier: { readonly traceparent: string | undefined; readonly tracestate: string | undefined },
    fn: (span: RequestSpan) => Promise<T>,
  ): Promise<T>;
  /** `fn` (sync or async) inside a child span of the current one; an exception is recorded by its name. */
  child<T>(name: string, attributes: SpanAttributes, fn: () => T): T;
}
