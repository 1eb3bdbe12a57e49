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
  return answered<T>(response.status, response.statusText, await response.text(), bearer);
}

/** The answer's JSON, or its error envelope as an ApiError (a 401 for the current token signs out). */
function answered<T>(status: number, statusText: string, text: string, bearer: string | null): T {
  let json: unknown = null;
  try {
    json = text === '' ? null : JSON.parse(text);
  } catch {
    json = null;
  }
  if (status < 200 || status > 299) {
    const error = (json ?? {}) as { error?: string; message?: string; problems?: string[] };
    const failure = new ApiError(
      status,
      error.error ?? `HTTP_${status}`,
      error.message ?? statusText,
      error.problems ?? [],
    );
    if (status === 401 && bearer === token.get()) onUnauthorized();
    throw failure;
  }
  return json as T;
}

/**
 * POSTs `file` as the raw body (never JSON-encoded) and answers the JSON reply. XMLHttpRequest rather than
 * fetch, for its upload progress: `onProgress` is told the share of the file sent (0 to 1).
 */
export function upload<T>(path: string, file: Blob, onProgress: (sent: number) => void): Promise<T> {
  const bearer = token.get();
  return new Promise<T>((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', path);
    if (bearer !== null) request.setRequestHeader('authorization', `Bearer ${bearer}`);
    request.setRequestHeader('content-type', 'application/octet-stream');
    request.setRequestHeader('accept', 'application/json');
    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    });
    request.addEventListener('load', () => {
      try {
        resolve(answered<T>(request.status, request.statusText, request.responseText, bearer));
      } catch (error) {
        reject(error);
      }
    });
    request.addEventListener('error', () => reject(new Error('The upload failed (the connection was closed).')));
    request.send(file);
  });
}

/** GETs `path` as a file: its bytes and the name its Content-Disposition gives (else `fallback`). */
export async function download(path: string, fallback: string): Promise<{ blob: Blob; name: string }> {
  const bearer = token.get();
  const response = await fetch(path, {
    headers: bearer === null ? {} : { authorization: `Bearer ${bearer}` },
    credentials: 'omit',
    cache: 'no-store',
    redirect: 'error',
  });
  if (!response.ok) answered(response.status, response.statusText, await response.text(), bearer);
  const named = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '');
  return { blob: await response.blob(), name: named?.[1] ?? fallback };
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
