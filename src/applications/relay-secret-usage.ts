// When each relay secret was last used, recorded in batches: the request path only notes the use in a
// Map (no I/O, no await), and the notes go to the store every `flushMs` and at shutdown, one write per
// secret used since the last flush. So the relay secret check stays one hash and constant-time compares,
// and a busy relay costs the database one small write every few seconds, not one per request.
import type { Logger } from '../util/log.js';
import type { RelaySecretStore, RelaySecretUse } from '../stores/relay-secret-types.js';

export interface RelaySecretUsageOptions {
  readonly store: Pick<RelaySecretStore, 'recordUses'>;
  /** Epoch ms (runtime.now). */
  readonly now: () => number;
  /** Between flushes (default 10 000 ms). */
  readonly flushMs?: number;
  /** Bound on secrets noted between flushes (default 10 000; more are noted at the next flush's turn). */
  readonly maxPending?: number;
  readonly log?: Logger;
}

export class RelaySecretUsage {
  readonly #options: RelaySecretUsageOptions;
  /** By `clientId\nhash`: only secrets that matched, so bounded by the secrets that exist. */
  #pending = new Map<string, RelaySecretUse>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #flushing: Promise<void> = Promise.resolve();

  constructor(options: RelaySecretUsageOptions) {
    this.#options = options;
  }

  /** A request carried this secret (`sha256:<hex>`, one of the application's). No I/O. */
  note(clientId: string, hash: string): void {
    const key = `${clientId}\n${hash}`;
    if (this.#pending.size >= (this.#options.maxPending ?? 10_000) && !this.#pending.has(key)) return;
    this.#pending.set(key, { clientId, hash, at: this.#options.now() });
  }

  /** Uses noted on this instance and not written yet (the admin list shows them at once), by hash. */
  pending(clientId: string): Map<string, number> {
    const found = new Map<string, number>();
    for (const use of this.#pending.values()) if (use.clientId === clientId) found.set(use.hash, use.at);
    return found;
  }

  /** Writes what was noted; a failed write keeps the notes for the next flush. Never rejects. */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(async () => {
      if (this.#pending.size === 0) return;
      const batch = this.#pending;
      this.#pending = new Map();
      try {
        await this.#options.store.recordUses([...batch.values()]);
      } catch (error) {
        for (const [key, use] of batch) if (!this.#pending.has(key)) this.#pending.set(key, use);
        this.#options.log?.warn(
          { event: 'relay_secret_usage_not_written', error: error instanceof Error ? error.message : String(error) },
          'the last use of relay secrets could not be written; trying again at the next flush',
        );
      }
    });
    return this.#flushing;
  }

  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => void this.flush(), this.#options.flushMs ?? 10_000);
    this.#timer.unref();
  }

  /** Stops the timer and writes what is left (shutdown). */
  async stop(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }
}
