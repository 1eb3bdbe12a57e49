// The admin listener's answers: JSON with a status, the error envelope of an AdminError (with the headers
// some errors need), and the 405 of a path asked with a method it does not have.
import { ADMIN_ERRORS, AdminError } from './errors.js';

export interface Answer {
  readonly status: number;
  readonly body: string;
  readonly contentType: string;
  readonly headers?: Record<string, string>;
}

class MethodNotAllowed extends AdminError {
  constructor(readonly allow: readonly string[]) {
    super('METHOD_NOT_ALLOWED', `${ADMIN_ERRORS.METHOD_NOT_ALLOWED.message} Allowed: ${allow.join(', ')}.`);
  }
}

export const json = (status: number, value: unknown, headers?: Record<string, string>): Answer => ({
  status,
  body: `${JSON.stringify(value)}\n`,
  contentType: 'application/json; charset=utf-8',
  ...(headers ? { headers } : {}),
});

export function errorAnswer(error: AdminError): Answer {
  const headers: Record<string, string> = {};
  if (error.code === 'UNAUTHORIZED') headers['www-authenticate'] = 'Bearer realm="passkey-server admin"';
  if (error instanceof MethodNotAllowed) headers.allow = error.allow.join(', ');
  // The rest of an oversized body is never read: close the connection after answering.
  if (error.code === 'PAYLOAD_TOO_LARGE') headers.connection = 'close';
  return json(
    error.status,
    { error: error.code, message: error.message, ...(error.problems ? { problems: error.problems } : {}) },
    headers,
  );
}

export function only(method: string, allowed: readonly string[], run: () => Answer): Answer {
  if (!allowed.includes(method)) throw methodNotAllowed(allowed);
  return run();
}

export async function onlyAsync(
  method: string,
  allowed: readonly string[],
  run: () => Promise<Answer>,
): Promise<Answer> {
  if (!allowed.includes(method)) throw methodNotAllowed(allowed);
  return run();
}

export function methodNotAllowed(allow: readonly string[]): AdminError {
  return new MethodNotAllowed(allow);
}
