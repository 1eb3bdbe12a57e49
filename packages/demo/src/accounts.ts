// The demo's stand-in for an identity provider's own account system: who has registered a passkey (per
// variant), and who is signed in (a session cookie). Just enough for the registration rule of spec point 6.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { dirname } from 'node:path';

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
  readonly #path: string;
  readonly #sessions = new Map<string, DemoSession & { expiresAt: number }>();
  #users: Promise<Record<DemoVariant, Set<string>>> | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(path: string) {
    this.#path = path;
  }

  async isRegistered(variant: DemoVariant, username: string): Promise<boolean> {
    return (await this.#load())[variant].has(username);
  }

  async markRegistered(variant: DemoVariant, username: string): Promise<void> {
    const run = this.#queue.then(async () => {
      const users = await this.#load();
      if (users[variant].has(username)) return;
      users[variant].add(username);
      await mkdir(dirname(this.#path), { recursive: true });
      const temporary = `${this.#path}.${randomBytes(6).toString('hex')}.tmp`;
      await writeFile(
        temporary,
        `${JSON.stringify({ standard: [...users.standard], local: [...users.local] }, null, 2)}\n`,
        { mode: 0o600 },
      );
      await rename(temporary, this.#path);
    });
    this.#queue = run.catch(() => undefined);
    await run;
  }

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

  #load(): Promise<Record<DemoVariant, Set<string>>> {
    this.#users ??= readFile(this.#path, 'utf8').then(
      (text) => {
        const data = JSON.parse(text) as Partial<Record<DemoVariant, string[]>>;
        return { standard: new Set(data.standard ?? []), local: new Set(data.local ?? []) };
      },
      () => ({ standard: new Set<string>(), local: new Set<string>() }),
    );
    return this.#users;
  }
}

function tokenOf(request: IncomingMessage): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === SESSION_COOKIE) return value.join('=');
  }
  return undefined;
}
