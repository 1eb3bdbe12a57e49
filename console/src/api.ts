// The admin API, called with the token kept in sessionStorage (this browser tab only; never a cookie,
// never a URL). Every call goes to the listener that served the console: same origin, no other network.
const KEY = 'passkey-server.admin-token';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly problems: readonly string[] = [],
  ) {
    super(message);
  }
}

export const token = {
  get: (): string | null => sessionStorage.getItem(KEY),
  set: (value: string): void => sessionStorage.setItem(KEY, value),
  clear: (): void => sessionStorage.removeItem(KEY),
};

/** Told when the token is refused (401), so the page goes back to the sign-in form. */
let onUnauthorized: () => void = () => undefined;
export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

export async function api<T>(method: string, path: string, body?: unknown, bearer = token.get()): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? null : JSON.stringify(body),
    credentials: 'omit',
    cache: 'no-store',
    redirect: 'error',
  });
  const text = await response.text();
  let json: unknown = null;
  try {
    json = text === '' ? null : JSON.parse(text);
  } catch {
    json = null;
  }
  if (!response.ok) {
    const error = (json ?? {}) as { error?: string; message?: string; problems?: string[] };
    const failure = new ApiError(
      response.status,
      error.error ?? `HTTP_${response.status}`,
      error.message ?? response.statusText,
      error.problems ?? [],
    );
    if (response.status === 401 && bearer === token.get()) onUnauthorized();
    throw failure;
  }
  return json as T;
}

/** `path?name=value&…`, leaving out empty values. */
export function withQuery(path: string, query: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, value);
  const text = params.toString();
  return text === '' ? path : `${path}?${text}`;
}

export const segment = encodeURIComponent;

export interface Application {
  clientId: string;
  name: string;
  domain: string;
  origins?: string[];
  localOrigins?: string[];
  variants: string[];
  activeVariants: string[];
  approved: boolean;
  disabled: boolean;
  source: string;
  userVerification?: string | null;
  timeoutMs?: number;
  [key: string]: unknown;
}

export interface Credential {
  credentialId: string;
  username: string;
  nickname: string | null;
  authenticatorName: string | null;
  authenticatorIconLight: string | null;
  authenticatorIconDark: string | null;
  authenticatorVerified: boolean;
  aaguid: string | null;
  algorithm: number;
  backupEligible: boolean;
  backupState: boolean;
  attestationFormat: string;
  attestationType: string;
  attestationTrusted: boolean;
  cloneWarning: boolean;
  createdAt: string;
  lastUsedAt: string | null;
  [key: string]: unknown;
}

export interface AuditEvent {
  id: string;
  time: string;
  actor: string;
  action: string;
  clientId: string | null;
  subject: string | null;
  target: string | null;
  result: 'ok' | 'failed';
  errorName: string | null;
  details?: Record<string, unknown>;
  [key: string]: unknown;
}

export const applications = async (): Promise<Application[]> =>
  (await api<{ applications: Application[] }>('GET', '/admin/applications')).applications;
