// Store latency: wraps a store (any object with async methods: CredentialStore, ChallengeStore, …) so that
// every call is timed into one histogram, labelled by store, operation and outcome. The wrapper keeps the
// store's interface exactly (optional methods stay absent when the store lacks them).
//
// This runs on every store call of every request, so the per-call work is kept to a clock read and a
// histogram update: each method's timed wrapper (and its labels) is made once, not at every property read.
import { StoreUnavailableError } from '../errors/catalogue.js';
import type { Labels, MetricsRegistry } from './registry.js';

const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export interface StoreMetrics {
  /** A view of `store` whose method calls are timed under `store="<name>"`. */
  instrument<T extends object>(name: string, store: T): T;
}

type Method = (...args: unknown[]) => unknown;

export function createStoreMetrics(registry: MetricsRegistry): StoreMetrics {
  const latency = registry.histogram(
    'passkey_store_operation_duration_seconds',
    'Store call latency per store, operation and outcome (ok|error|unavailable).',
    ['store', 'operation', 'outcome'],
    STORE_BUCKETS,
  );

  /** `method` called on `target`, timed under store=name, operation=property. */
  function timed(name: string, property: string, target: object, method: Method): Method {
    const ok = latency.series({ store: name, operation: property, outcome: 'ok' });
    const failed = (error: unknown): Labels => ({ store: name, operation: property, outcome: outcomeOf(error) });
    const seconds = (started: number) => (performance.now() - started) / 1000;
    return (...args) => {
      const started = performance.now();
      let result: unknown;
      try {
        result = method.apply(target, args);
      } catch (error) {
        latency.observe(failed(error), seconds(started));
        throw error;
      }
      if (!(result instanceof Promise)) {
        ok.observe(seconds(started));
        return result;
      }
      // The caller gets the store's own promise (no derived promise in its chain, one microtask less); the
      // observation is a reaction of its own, registered first, so it runs before the caller resumes. It
      // handles the rejection it sees, so it adds no unhandled rejection: the caller's promise is unchanged.
      result.then(
        () => ok.observe(seconds(started)),
        (error: unknown) => latency.observe(failed(error), seconds(started)),
      );
      return result;
    };
  }

  return {
    instrument<T extends object>(name: string, store: T): T {
      const wrappers = new Map<string, { readonly method: Method; readonly timed: Method }>();
      return new Proxy(store, {
        get(target, property) {
          // `this` is the store itself (not the proxy): getters and #private fields need the real object.
          const value = Reflect.get(target, property) as unknown;
          if (typeof value !== 'function' || typeof property !== 'string' || property === 'constructor') return value;
          const known = wrappers.get(property);
          // Rebuilt if the store's property now holds another function (an own property replaced at run time).
          if (known !== undefined && known.method === value) return known.timed;
          const wrapper = { method: value as Method, timed: timed(name, property, target, value as Method) };
          wrappers.set(property, wrapper);
          return wrapper.timed;
        },
      });
    },
  };
}

function outcomeOf(error: unknown): string {
  return error instanceof StoreUnavailableError ? 'unavailable' : 'error';
}
