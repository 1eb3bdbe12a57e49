// Liveness and readiness. Liveness: the process answers. Readiness: every backend answers its ping within
// a time limit, and the service is not shutting down; a load balancer sends traffic only while ready.

export interface ReadinessCheck {
  /** e.g. `credentials`, `challenges`, `rate-limits`, `audit`, `applications`. */
  readonly name: string;
  readonly check: () => Promise<void>;
}

export interface ReadinessReport {
  readonly ready: boolean;
  readonly status: 'ready' | 'not ready' | 'draining';
  /** Per check: `ok`, or `unavailable: <message>`. */
  readonly checks: Record<string, string>;
}

export class Readiness {
  #draining = false;

  constructor(
    private readonly checks: readonly ReadinessCheck[],
    private readonly timeoutMs = 2000,
  ) {}

  /** From now on readiness fails (graceful shutdown: let the load balancer move traffic away first). */
  drain(): void {
    this.#draining = true;
  }

  get draining(): boolean {
    return this.#draining;
  }

  async report(): Promise<ReadinessReport> {
    const results = await Promise.all(
      this.checks.map(async ({ name, check }) => [name, await this.#run(check)] as const),
    );
    const checks = Object.fromEntries(results);
    const healthy = results.every(([, result]) => result === 'ok');
    if (this.#draining) return { ready: false, status: 'draining', checks };
    return { ready: healthy, status: healthy ? 'ready' : 'not ready', checks };
  }

  async #run(check: () => Promise<void>): Promise<string> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`unavailable: no answer within ${this.timeoutMs} ms`), this.timeoutMs);
    });
    try {
      return await Promise.race([
        check().then(
          () => 'ok',
          (error: unknown) => `unavailable: ${error instanceof Error ? error.message : String(error)}`,
        ),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A readiness check from a store's ping. */
export function storeCheck(name: string, store: { ping(): Promise<void> }): ReadinessCheck {
  return { name, check: () => store.ping() };
}

/** The readiness checks of the service's credential and challenge stores. */
export function serviceStoreChecks(stores: {
  readonly credentials: { ping(): Promise<void> };
  readonly challenges: { ping(): Promise<void> };
}): ReadinessCheck[] {
  return [storeCheck('credentials', stores.credentials), storeCheck('challenges', stores.challenges)];
}
