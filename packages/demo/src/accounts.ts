// The demo's stand-in for an identity provider's own sessions: who is signed in (a session cookie), which
// the relay's registration rule (spec point 6) and a user's own passkeys ask.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export type DemoVariant = 'standard' | 'local';

/** What the sign-in's result answer said about the passkey, shown again after a reload. */
export interface PasskeyFacts {
  readonly credentialId: string;
  readonly authenticatorName: string | null;
  readonly backupEligible: boolean;
  readonly backupState: boolean;
}

export interface DemoSession {
  readonly username: string;
  readonly variant: DemoVariant;
  readonly passkey?: PasskeyFacts;
  /** The sign-in answer's `credentialsToken` (standard variant): lets the relay list and delete this user's passkeys. */
  readonly credentialsToken?: string;
}

export const SESSION_COOKIE = 'demo_session';
const SESSION_LIFETIME_MS = 8 * 3_600_000;

export class DemoAccounts {
  readonly #sessions = new Map<string, DemoSession & { expiresAt: number }>();

  /** Starts a session; returns the Set-Cookie value. */
  signIn(session: DemoSession): string {
    const token = randomBytes(32).toString('base64url');
    this.#sessions.set(token, { ...session, expiresAt: Date.now() + SESSION_LIFETIME_MS });
    return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=${SESSION_LIFETIME_MS / 1000}`;
  }

  /** Ends the request's session; returns the Set-Cookie value that clears it. */
  signOut(request: IncomingMessage): string {
    const token = tokenOf(request);
    if (token) this.#sessions.delete(token);
    return `${SESSION_COOKIE}=; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=0`;
  }

  sessionOf(request: IncomingMessage, variant: DemoVariant): DemoSession | undefined {
    const token = tokenOf(request);
    const session = token === undefined ? undefined : this.#sessions.get(token);
    if (!session || session.variant !== variant) return undefined;
    if (session.expiresAt <= Date.now()) {
      this.#sessions.delete(token!);
      return undefined;
    }
    const { expiresAt: _expiresAt, ...kept } = session;
    return kept;
  }
}

function tokenOf(request: IncomingMessage): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === SESSION_COOKIE) return value.join('=');
  }
  return undefined;
}
