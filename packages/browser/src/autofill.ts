// startAutofill: sign-in from the browser's autofill list, started, paused around modal ceremonies,
// restarted after a refused passkey, and stopped cleanly. The page gets a handle; `result` resolves with
// the service's answer once the user signed in from the list (null once stopped or where the browser
// has no autofill for passkeys).
import { isConditionalMediationAvailable, startConditionalGet, type ConditionalRequest } from './conditional.js';
import { finish } from './calls.js';
import { activeAutofill, setActiveAutofill, type Pausable } from './exclusive.js';
import { browserFailure, post, type CallOptions, type PasskeyError } from './relay-client.js';
import type { PasskeyResult } from './types.js';

export interface AutofillOptions extends CallOptions {
  /** The identifier field: it gets `autocomplete="username webauthn"` if it lacks `webauthn`. */
  readonly input?: HTMLInputElement | undefined;
  /** Stops the autofill when it fires, as `stop()` does; `result` then resolves to null. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Told when a passkey picked from the list was refused (e.g. one the site deleted); the autofill then
   * starts again. Without it the refusal rejects `result`.
   */
  readonly onError?: ((error: PasskeyError) => void) | undefined;
}

export interface AutofillHandle {
  /** The service's answer once the user signed in from the list; null once stopped or unavailable. */
  readonly result: Promise<PasskeyResult | null>;
  /** Ends the autofill and waits until the browser has let its request go. */
  stop(): Promise<void>;
}

/** At most this many refused picks in a row before the autofill gives up (no endless loop). */
const MAX_ROUNDS = 20;

export function startAutofill(options: AutofillOptions = {}): AutofillHandle {
  const input = options.input;
  if (input && !/\bwebauthn\b/.test(input.getAttribute('autocomplete') ?? ''))
    input.setAttribute('autocomplete', 'username webauthn');
  let stopped = false;
  let request: ConditionalRequest | undefined;
  let wake: (() => void) | undefined;
  let paused: Promise<void> | undefined;

  const controller: Pausable = {
    async pause() {
      if (paused === undefined)
        paused = new Promise<void>((resolve) => {
          wake = resolve;
        });
      await request?.abort();
    },
    resume() {
      paused = undefined;
      wake?.();
    },
    end() {
      stopped = true;
      wake?.();
      void request?.abort();
    },
  };

  async function run(): Promise<PasskeyResult | null> {
    if (!(await isConditionalMediationAvailable())) return null;
    for (let round = 0; round < MAX_ROUNDS && !stopped; ) {
      if (paused !== undefined) {
        await paused;
        continue;
      }
      const json = await post(options, 'assertion/options', {});
      if (stopped) return null;
      if (paused !== undefined) continue;
      request = startConditionalGet(json);
      let credential: PublicKeyCredential | null;
      try {
        credential = await request.result;
      } catch (error) {
        throw browserFailure(error, 'get', options);
      } finally {
        request = undefined;
      }
      if (credential === null) continue; // paused or stopped: the loop's head decides
      try {
        return await finish(options, 'assertion', credential);
      } catch (error) {
        if (!options.onError) throw error;
        options.onError(error as PasskeyError);
        round += 1;
      }
    }
    return null;
  }

  // The page's AbortSignal stops it, as stop() does (the element removed from the page, a route change).
  if (options.signal?.aborted) controller.end();
  else options.signal?.addEventListener('abort', () => controller.end(), { once: true });
  // One autofill per page: a new one ends the one before.
  activeAutofill()?.end();
  setActiveAutofill(controller);
  const result = run().finally(() => {
    stopped = true;
    if (activeAutofill() === controller) setActiveAutofill(undefined);
  });
  result.catch(() => undefined); // read by the page; this keeps an unread rejection quiet
  return {
    result,
    async stop() {
      controller.end();
      await request?.abort();
      await result.then(
        () => undefined,
        () => undefined,
      );
    },
  };
}
