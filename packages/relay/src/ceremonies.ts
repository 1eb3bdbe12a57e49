// Which user an options call was for, remembered by its challenge, so the matching result call (which
// carries no username) can be tied to that user: the local variant files the `localhost` blob under it,
// and `onResult` can tell the integrator who just signed in. In memory, bounded in size and time.

export interface PendingCeremony {
  readonly operation: 'attestation' | 'assertion';
  readonly username: string;
}

interface Entry extends PendingCeremony {
  readonly expiresAt: number;
}

export class PendingCeremonies {
  readonly #entries = new Map<string, Entry>();
  readonly #capacity: number;
  readonly #now: () => number;

  constructor(capacity = 10_000, now: () => number = Date.now) {
    this.#capacity = capacity;
    this.#now = now;
  }

  remember(challenge: string, ceremony: PendingCeremony, lifetimeMs: number): void {
    this.#dropExpired();
    // Map keeps insertion order: when full, the oldest pending ceremony goes first.
    while (this.#entries.size >= this.#capacity) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(challenge, { ...ceremony, expiresAt: this.#now() + lifetimeMs });
  }

  /** Returns and forgets the ceremony (a challenge serves one result call, as at the service). */
  take(challenge: string, operation: PendingCeremony['operation']): PendingCeremony | undefined {
    const entry = this.#entries.get(challenge);
    if (!entry || entry.operation !== operation) return undefined;
    this.#entries.delete(challenge);
    return entry.expiresAt > this.#now() ? { operation: entry.operation, username: entry.username } : undefined;
  }

  /** Reads without forgetting. */
  peek(challenge: string, operation: PendingCeremony['operation']): PendingCeremony | undefined {
    const entry = this.#entries.get(challenge);
    if (!entry || entry.operation !== operation || entry.expiresAt <= this.#now()) return undefined;
    return { operation: entry.operation, username: entry.username };
  }

  /** Drops expired entries from the oldest end; stops at the first live one (later ones expire lazily). */
  #dropExpired(): void {
    const now = this.#now();
    for (const [challenge, entry] of this.#entries) {
      if (entry.expiresAt > now) return;
      this.#entries.delete(challenge);
    }
  }
}

/** The challenge inside a result request's `response.clientDataJSON`, or undefined if it has none. */
export function challengeOf(body: Record<string, unknown>): string | undefined {
  const response = body.response;
  if (response === null || typeof response !== 'object') return undefined;
  const encoded = (response as { clientDataJSON?: unknown }).clientDataJSON;
  if (typeof encoded !== 'string' || encoded.length > 65_536) return undefined;
  try {
    const clientData: unknown = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
    const challenge = (clientData as { challenge?: unknown } | null)?.challenge;
    return typeof challenge === 'string' ? challenge : undefined;
  } catch {
    return undefined;
  }
}
