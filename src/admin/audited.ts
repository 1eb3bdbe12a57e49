// Every change of the admin API and CLI is audited, whether it succeeds or fails: `audited` runs one and
// records it, ok with the facts it noted, or failed with the error name.
import type { AuditLog } from '../audit/log.js';
import type { AuditDetails } from '../audit/types.js';
import { StoreUnavailableError } from '../errors/catalogue.js';
import { AdminError } from './errors.js';

/** Who asks, for the audit log. */
export interface Actor {
  /** `admin:<token name>` or `cli:<user>`. */
  readonly name: string;
  readonly requestId?: string | null;
  readonly remoteAddress?: string | null;
}

/** What a change notes as it runs, for its audit event. */
export type Note = (more: { clientId?: string; subject?: string; details?: AuditDetails }) => void;

/** Runs a change and audits it: ok with its facts, or failed with the error name. */
export async function audited<T>(
  audit: AuditLog,
  actor: Actor,
  action: string,
  facts: { clientId?: string; target?: string },
  run: (note: Note) => Promise<T>,
): Promise<T> {
  const noted: { clientId?: string; subject?: string; details?: AuditDetails } = {};
  const note = (more: typeof noted) => Object.assign(noted, more);
  const base = {
    actor: actor.name,
    action,
    clientId: noted.clientId ?? facts.clientId ?? null,
    target: facts.target ?? null,
    requestId: actor.requestId ?? null,
    remoteAddress: actor.remoteAddress ?? null,
  };
  try {
    const result = await run(note);
    await audit.record({
      ...base,
      clientId: noted.clientId ?? base.clientId,
      subject: noted.subject ?? null,
      result: 'ok',
      ...(noted.details ? { details: noted.details } : {}),
    });
    return result;
  } catch (error) {
    const errorName =
      error instanceof AdminError
        ? error.code
        : error instanceof StoreUnavailableError
          ? 'SERVICE_UNAVAILABLE'
          : 'INTERNAL_SERVER_ERROR';
    await audit.record({
      ...base,
      clientId: noted.clientId ?? base.clientId,
      subject: noted.subject ?? null,
      result: 'failed',
      errorName,
      ...(noted.details ? { details: noted.details } : {}),
    });
    throw error;
  }
}
