// The four operations, and a user's own passkeys (list, delete): path → operation name, request schema,
// operation. Nothing else is routed.

import { assertionOptions } from '../ceremonies/assertion-options.js';
import { assertionResult } from '../ceremonies/assertion-result.js';
import { attestationOptions } from '../ceremonies/attestation-options.js';
import { attestationResult } from '../ceremonies/attestation-result.js';
import type { CeremonyContext } from '../ceremonies/context.js';
import { deleteOwnCredential, listOwnCredentials } from '../ceremonies/own-credentials.js';
import type { OperationOutcome } from '../service.js';
import type { RequestReaders } from './validation.js';

export type OperationName = Exclude<OperationOutcome['operation'], 'other'>;

export interface Route {
  readonly operation: OperationName;
  /** Checks the parsed JSON body against the schema, then runs the ceremony; resolves to the ok fields. */
  run(ctx: CeremonyContext, body: unknown, read: RequestReaders): Promise<Record<string, unknown>>;
}

/** Each operation is served at `/api/<its name>`: the path is derived, never written twice. */
function route(operation: OperationName, run: Route['run']): [string, Route] {
  return [`/api/${operation}`, { operation, run }];
}

export const ROUTES: ReadonlyMap<string, Route> = new Map<string, Route>([
  route('attestation/options', (ctx, body, read) => attestationOptions(ctx, read.attestationOptions(body))),
  route('attestation/result', (ctx, body, read) => attestationResult(ctx, read.attestationResult(body))),
  route('assertion/options', (ctx, body, read) => assertionOptions(ctx, read.assertionOptions(body))),
  route('assertion/result', (ctx, body, read) => assertionResult(ctx, read.assertionResult(body))),
  route('credentials/list', (ctx, body, read) => listOwnCredentials(ctx, read.credentialsList(body))),
  route('credentials/delete', (ctx, body, read) => deleteOwnCredential(ctx, read.credentialsDelete(body))),
]);

export const ALLOWED_METHODS = 'POST';
