// Store latency: wraps a store (any object with async methods: CredentialStore, ChallengeStore, …) so that
// every call is timed into one histogram, labelled by store, operation and outcome. The wrapper keeps the
// store's interface exactly (optional methods stay absent when the store lacks them).
import type { MetricsRegistry } from './registry.js';

const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export interface StoreMetrics {
  /** A view of `store` whose method calls are timed under `store="<name>"`. */
  instrument<T extends object>(name: string, store: T): T;
}

export function createStoreMetrics(registry: MetricsRegistry): StoreMetrics {
  const latency = registry.histogram('passkey_store_operation_duration_seconds',
    'Store call latency per store, operation and outcome (ok|error|unavailable).',
    ['store', 'operation', 'outcome'], STORE_BUCKETS);

  return {
    instrument<T extends object>(name: string, store: T): T {
      return new Proxy(store, {
        get(target, property) {
          // `this` is the store itself (not the proxy): getters and #private fields need the real object.
          const value = Reflect.get(target, property) as unknown;
          if (typeof value !== 'function' || typeof property !== 'string' || property === 'constructor') return value;
          return (...args: unknown[]) => {
            const stop = latency.startTimer({ store: name, operation: property });
            let result: unknown;
            try {
              result = (value as (...a: unknown[]) => unknown).apply(target, args);
            } catch (error) {
              stop({ outcome: outcomeOf(error) });
              throw error;
            }
            if (!(result instanceof Promise)) {
              stop({ outcome: 'ok' });
              return result;
            }
            return result.then(
              (v) => { stop({ outcome: 'ok' }); return v; },
              (error: unknown) => { stop({ outcome: outcomeOf(error) }); throw error; },
            );
          };
        },
      });
    },
  };
}

function outcomeOf(error: unknown): string {
  return error instanceof Error && error.name === 'StoreUnavailableError' ? 'unavailable' : 'error';
}
