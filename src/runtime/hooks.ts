// Several ServiceHooks as one: every onOutcome runs (one failing does not stop the others), and admission
// asks each admit in turn, refusing at the first refusal. A single hook of a kind is used as it is: both
// run on every request, and a wrapper around one would only add a call (and, for admit, an await).
import type { ServiceHooks } from '../service.js';

type Admit = NonNullable<ServiceHooks['admit']>;
type Decision = Awaited<ReturnType<Admit>>;

const ALLOWED: Decision = Object.freeze({ allowed: true, retryAfterSeconds: 0 });

export function composeHooks(...all: readonly ServiceHooks[]): ServiceHooks {
  const outcomes = all.flatMap((h) => (h.onOutcome ? [h.onOutcome.bind(h)] : []));
  const admits = all.flatMap((h) => (h.admit ? [h.admit.bind(h)] : []));
  const hooks: { -readonly [K in keyof ServiceHooks]: ServiceHooks[K] } = {};
  if (outcomes.length === 1) {
    hooks.onOutcome = outcomes[0];
  } else if (outcomes.length > 1) {
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
  if (admits.length === 1) {
    hooks.admit = admits[0];
  } else if (admits.length > 1) {
    hooks.admit = async (request) => {
      for (const admit of admits) {
        const decision = await admit(request);
        if (!decision.allowed) return decision;
      }
      return ALLOWED;
    };
  }
  return hooks;
}
