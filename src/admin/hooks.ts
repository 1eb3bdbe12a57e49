// Several ServiceHooks as one: every onOutcome runs (one failing does not stop the others), and admission
// asks each admit in turn, refusing at the first refusal.
import type { ServiceHooks } from '../service.js';

export function composeHooks(...all: readonly ServiceHooks[]): ServiceHooks {
  const outcomes = all.flatMap((h) => (h.onOutcome ? [h.onOutcome.bind(h)] : []));
  const admits = all.flatMap((h) => (h.admit ? [h.admit.bind(h)] : []));
  const hooks: { -readonly [K in keyof ServiceHooks]: ServiceHooks[K] } = {};
  if (outcomes.length > 0) {
    hooks.onOutcome = (outcome) => {
      let failure: unknown;
      for (const onOutcome of outcomes) {
        try {
          onOutcome(outcome);
        } catch (error) {
          failure ??= error;
        }
      }
      if (failure !== undefined) throw failure;
    };
  }
  if (admits.length > 0) {
    hooks.admit = async (request) => {
      for (const admit of admits) {
        const decision = await admit(request);
        if (!decision.allowed) return decision;
      }
      return { allowed: true, retryAfterSeconds: 0 };
    };
  }
  return hooks;
}
