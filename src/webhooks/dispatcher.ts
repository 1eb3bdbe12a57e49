// Delivery of the webhook outbox, off the request path: every instance polls its outbox now and then,
// leases the due messages (one instance per message: types.ts), POSTs each, signed, to its
// webhook (post.ts), and records the outcome: delivered (removed), retried later with backoff, or after the
// last attempt kept as a dead letter the admin API lists and can send again. Timers are unref'd: the
// dispatcher never keeps the process alive, and a message in flight at a crash is leased again once its
// lease ran out (at least once).
import type { OutboxDelivery, WebhookEndpoint, WebhookOutbox } from './types.js';
import type { Logger } from '../util/log.js';
import type { Runtime } from '../util/runtime.js';
import type { DestinationRules } from './destination.js';
import { postWebhook, type PostResult } from './post.js';
import { isSealed, type WebhookSecretBox } from './secret-box.js';
import { sign } from './signature.js';

/** Seconds to wait after the n-th failed attempt (the last one repeats): within seconds, then up to ten minutes. */
export const RETRY_DELAYS_S = [5, 15, 30, 60, 120, 300, 600] as const;

export function retryDelayMs(attempts: number): number {
  return RETRY_DELAYS_S[Math.min(Math.max(attempts, 1), RETRY_DELAYS_S.length) - 1]! * 1000;
}

/** How one attempt ended, as /metrics counts it (`passkey_webhook_deliveries_total{outcome}`). */
export type AttemptOutcome = 'delivered' | 'http_error' | 'network_error' | 'timeout' | 'refused' | 'unsendable';

/** Told of every attempt and its consequence (metrics/webhook-delivery.ts counts them). */
export interface DeliveryObserver {
  /**
   * One attempt ended. `seconds`: how long it took (resolving, connecting, the answer's status); `lagSeconds`:
   * from the event to now, for a delivered message; `next`: what became of a failed one.
   */
  attempt(outcome: AttemptOutcome, seconds: number, lagSeconds: number | null, next: 'retry' | 'dead' | null): void;
}

export interface DispatcherOptions {
  readonly outbox: WebhookOutbox;
  /** The webhook a message goes to, or undefined when it (or its application) is gone. */
  readonly endpoint: (clientId: string, webhookId: string) => Promise<WebhookEndpoint | undefined>;
  /** `env:<NAME>` secrets as config/ read them at start. */
  readonly secrets: ReadonlyMap<string, string>;
  /** Opens the sealed secrets of the webhooks the admin API added. */
  readonly secretBox: WebhookSecretBox;
  readonly runtime: Pick<Runtime, 'now' | 'randomBytes'>;
  readonly log: Logger;
  readonly maxAttempts: number;
  readonly timeoutMs: number;
  /** Which hosts a delivery may reach, and the resolver it asks (destination.ts). */
  readonly destination: DestinationRules;
  /** Told of every attempt (the metrics). */
  readonly observer?: DeliveryObserver;
  /** Between polls when nothing was due (default 1000 ms). */
  readonly pollMs?: number;
  /** Messages per lease (default 20). */
  readonly batch?: number;
  /** Replaces postWebhook (tests of the schedule). */
  readonly post?: typeof postWebhook;
}

export interface Dispatcher {
  /** One poll now: leases what is due and delivers it; resolves to how many messages it tried. */
  tick(): Promise<number>;
  start(): void;
  /** Stops polling and waits (bounded) for the deliveries in flight. */
  stop(): Promise<void>;
}

function outcomeOf(result: PostResult): AttemptOutcome {
  if (result.status !== null) return 'http_error';
  if (result.refused === true) return 'refused';
  return result.timedOut === true ? 'timeout' : 'network_error';
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { outbox, runtime, log } = options;
  const owner = `dispatcher-${runtime.randomBytes(8).toString('hex')}`;
  const pollMs = options.pollMs ?? 1000;
  // A lease outlives every attempt of the batch (they run in parallel), so no other instance takes them meanwhile.
  const leaseMs = options.timeoutMs * 2 + 5000;
  const post = options.post ?? postWebhook;
  let timer: NodeJS.Timeout | undefined;
  let stopped = true;
  let running: Promise<number> | undefined;

  /** The signing secret: an `env:` one from the environment, a stored one opened, a config file's literal one. */
  function secretOf(endpoint: WebhookEndpoint): string | undefined {
    if (endpoint.secret.startsWith('env:')) return options.secrets.get(endpoint.secret.slice(4));
    // A config file's secret is opened by the application store; one still sealed there did not open.
    const sealed = endpoint.source === 'admin' || isSealed(endpoint.secret);
    return sealed ? options.secretBox.open(endpoint, endpoint.secret) : endpoint.secret;
  }

  async function attempt(message: OutboxDelivery): Promise<void> {
    const endpoint = await options.endpoint(message.clientId, message.webhookId);
    const attempts = message.attempts + 1;
    const started = performance.now();
    let result: PostResult;
    let unsendable = true;
    if (endpoint === undefined) {
      result = { status: null, error: 'the webhook no longer exists' };
    } else {
      const secret = secretOf(endpoint);
      if (secret === undefined) {
        result = {
          status: null,
          error: endpoint.secret.startsWith('env:')
            ? `the secret ${endpoint.secret} is not set`
            : 'the secret does not open with the keys of the secrets file (was its key retired?)',
        };
      } else {
        const timestamp = Math.floor(runtime.now() / 1000);
        const headers = {
          'webhook-id': message.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': sign(secret, message.id, timestamp, message.body),
          'user-agent': 'passkey-server-webhooks',
        };
        unsendable = false;
        result = await post(endpoint.url, headers, message.body, options.timeoutMs, options.destination);
      }
    }
    const seconds = (performance.now() - started) / 1000;
    if (result.error === null) {
      await outbox.delivered(message.id, owner);
      options.observer?.attempt('delivered', seconds, Math.max(0, runtime.now() - message.createdAt) / 1000, null);
      return;
    }
    const dead = endpoint === undefined || attempts >= options.maxAttempts;
    options.observer?.attempt(unsendable ? 'unsendable' : outcomeOf(result), seconds, null, dead ? 'dead' : 'retry');
    const at = dead ? runtime.now() : runtime.now() + retryDelayMs(attempts);
    await outbox.failed(message.id, owner, { attempts, at, error: result.error, dead });
    const fields = {
      event: 'webhook_failed',
      id: message.id,
      clientId: message.clientId,
      webhookId: message.webhookId,
    };
    if (dead) log.warn({ ...fields, attempts, error: result.error }, 'a webhook message is now a dead letter');
    else log.info({ ...fields, attempts, error: result.error }, 'a webhook delivery failed; it will be retried');
  }

  async function tickOnce(): Promise<number> {
    const due = await outbox.lease(owner, runtime.now(), leaseMs, options.batch ?? 20);
    await Promise.all(
      due.map((message) =>
        attempt(message).catch((error: unknown) =>
          log.error(
            { event: 'webhook_error', id: message.id, error: error instanceof Error ? error.message : String(error) },
            'a webhook delivery could not be recorded; it is retried when its lease ends',
          ),
        ),
      ),
    );
    return due.length;
  }

  const tick = (): Promise<number> => {
    const next = (running ?? Promise.resolve(0)).then(tickOnce, tickOnce);
    running = next;
    return next;
  };

  const arm = (delay: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      tick()
        .catch((error: unknown) => {
          log.warn(
            { event: 'webhook_poll_failed', error: error instanceof Error ? error.message : String(error) },
            'the webhook outbox could not be read; trying again',
          );
          return 0;
        })
        // A full batch: more may be due, poll again at once.
        .then((count) => arm(count >= (options.batch ?? 20) ? 0 : pollMs));
    }, delay);
    timer.unref();
  };

  return {
    tick,
    start() {
      if (!stopped) return;
      stopped = false;
      arm(0);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      if (running === undefined) return;
      let bound: NodeJS.Timeout | undefined;
      await Promise.race([
        running.catch(() => 0),
        new Promise((resolve) => {
          bound = setTimeout(resolve, options.timeoutMs + 1000);
          bound.unref();
        }),
      ]);
      clearTimeout(bound);
    },
  };
}
