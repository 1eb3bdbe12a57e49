// One call of the admin API over its socket with an admin token: the status and the JSON answer, bounded.
export type AdminCall = (method: string, path: string, body?: unknown) => Promise<{ status: number; json: any }>;

/** Calls of the admin listener at `adminUrl` (read at each call: it may be known only later) with `token`. */
export function adminCaller(adminUrl: () => string, token: () => string): AdminCall {
  return async (method, path, body) => {
    const res = await fetch(`${adminUrl()}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token()}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: res.status, json: await res.json() };
  };
}
