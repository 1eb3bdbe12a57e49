// The console's overview: ceremonies and their failures per application over the last hour, counted by
// this instance from the same one-outcome-per-request report that feeds the Prometheus metrics
// (ServiceHooks.onOutcome). Sixty one-minute slots, reused as the clock moves on; only registered
// applications are counted (the same rule as the metrics' client_id label), at most `maxClients` a slot.
import type { Overview, OverviewApplication } from '../schemas/admin.js';
import type { OperationOutcome, ServiceHooks } from '../service.js';

export const OVERVIEW_WINDOW_MS = 3_600_000;
const SLOT_MS = 60_000;
const SLOTS = OVERVIEW_WINDOW_MS / SLOT_MS;

interface Counts {
  registrationsStarted: number;
  registrations: number;
  registrationsFailed: number;
  authenticationsStarted: number;
  authentications: number;
  authenticationsFailed: number;
  errors: Map<string, number>;
}

interface Slot {
  minute: number;
  readonly clients: Map<string, Counts>;
}

const KINDS: Partial<Record<OperationOutcome['operation'], readonly ['registrations' | 'authentications', boolean]>> = {
  'attestation/options': ['registrations', true],
  'attestation/result': ['registrations', false],
  'assertion/options': ['authentications', true],
  'assertion/result': ['authentications', false],
};

export interface RecentCeremoniesOptions {
  readonly now: () => number;
  /** A Client ID of a registered application (others are not counted). */
  readonly isKnownClient: (clientId: string) => boolean;
  readonly maxClients?: number;
}

export class RecentCeremonies {
  readonly #slots: Slot[] = Array.from({ length: SLOTS }, () => ({ minute: -1, clients: new Map() }));
  readonly #max: number;

  constructor(private readonly options: RecentCeremoniesOptions) {
    this.#max = options.maxClients ?? 500;
  }

  readonly hooks: Required<Pick<ServiceHooks, 'onOutcome'>> = {
    onOutcome: (outcome) => this.record(outcome),
  };

  record(outcome: OperationOutcome): void {
    const kind = KINDS[outcome.operation];
    const clientId = outcome.clientId;
    if (kind === undefined || clientId === null || !this.options.isKnownClient(clientId)) return;
    const minute = Math.floor(this.options.now() / SLOT_MS);
    const slot = this.#slots[minute % SLOTS]!;
    if (slot.minute !== minute) {
      slot.minute = minute;
      slot.clients.clear();
    }
    let counts = slot.clients.get(clientId);
    if (counts === undefined) {
      if (slot.clients.size >= this.#max) return;
      counts = emptyCounts();
      slot.clients.set(clientId, counts);
    }
    const [ceremony, started] = kind;
    const failed = outcome.errorName !== null || outcome.httpStatus >= 400;
    if (started) {
      if (!failed) counts[`${ceremony}Started`] += 1;
      return;
    }
    counts[ceremony] += 1;
    if (failed) {
      counts[`${ceremony}Failed`] += 1;
      const name = outcome.errorName ?? `HTTP_${outcome.httpStatus}`;
      counts.errors.set(name, (counts.errors.get(name) ?? 0) + 1);
    }
  }

  /** The last hour (the current minute and the 59 before it), per application, busiest first. */
  report(): Overview {
    const now = this.options.now();
    const minute = Math.floor(now / SLOT_MS);
    const totals = new Map<string, Counts>();
    for (const slot of this.#slots) {
      if (slot.minute <= minute - SLOTS || slot.minute > minute) continue;
      for (const [clientId, counts] of slot.clients) {
        const total = totals.get(clientId) ?? emptyCounts();
        totals.set(clientId, add(total, counts));
      }
    }
    const applications: OverviewApplication[] = [...totals].map(([clientId, c]) => ({
      clientId,
      registrations: { started: c.registrationsStarted, results: c.registrations, failed: c.registrationsFailed },
      authentications: {
        started: c.authenticationsStarted,
        results: c.authentications,
        failed: c.authenticationsFailed,
      },
      errors: [...c.errors]
        .map(([error, count]) => ({ error, count }))
        .sort((a, b) => b.count - a.count || a.error.localeCompare(b.error)),
    }));
    const busy = (a: OverviewApplication) => a.registrations.results + a.authentications.results;
    applications.sort((a, b) => busy(b) - busy(a) || a.clientId.localeCompare(b.clientId));
    return {
      windowSeconds: OVERVIEW_WINDOW_MS / 1000,
      since: new Date((minute - SLOTS + 1) * SLOT_MS).toISOString(),
      until: new Date(now).toISOString(),
      applications,
    };
  }
}

function emptyCounts(): Counts {
  return {
    registrationsStarted: 0,
    registrations: 0,
    registrationsFailed: 0,
    authenticationsStarted: 0,
    authentications: 0,
    authenticationsFailed: 0,
    errors: new Map(),
  };
}

function add(total: Counts, more: Counts): Counts {
  total.registrationsStarted += more.registrationsStarted;
  total.registrations += more.registrations;
  total.registrationsFailed += more.registrationsFailed;
  total.authenticationsStarted += more.authenticationsStarted;
  total.authentications += more.authentications;
  total.authenticationsFailed += more.authenticationsFailed;
  for (const [name, count] of more.errors) total.errors.set(name, (total.errors.get(name) ?? 0) + count);
  return total;
}
