// The four operations, and a user's own passkeys (list, delete, rename): path → operation name, request schema,
// operation, and which answers wait for the answer floor. Nothing else is routed.

import { assertionOptions } from '../ceremonies/assertion-options.js';
import { assertionResult } from '../ceremonies/assertion-result.js';
import { attestationOptions } from '../ceremonies/attestation-options.js';
import { attestationResult } from '../ceremonies/attestation-result.js';
import type { CeremonyContext } from '../ceremonies/context.js';
import { deleteOwnCredential, listOwnCredentials, renameOwnCredential } from '../ceremonies/own-credentials.js';
import type { OperationOutcome } from '../service.js';
import type { FloorPolicy } from './answer-floor.js';
import type { RequestReaders } from './validation.js';

export type OperationName = Exclude<OperationOutcome['operation'], 'other'>;

export interface Route {
  readonly operation: OperationName;
  /** Which of its answers wait for the answer floor (answer-floor.ts); absent: none. */
  readonly answerFloor?: FloorPolicy;
  /** Checks the parsed JSON body against the schema, then runs the ceremony; resolves to the ok fields. */
  run(ctx: CeremonyContext, body: unknown, read: RequestReaders): Promise<Record<string, unknown>>;
}

/** Each operation is served at `/api/<its name>`: the path is derived, never written twice. */
function route(operation: OperationName, run: Route['run'], answerFloor?: FloorPolicy): [string, Route] {
  return [`/api/${operation}`, answerFloor === undefined ? { operation, run } : { operation, run, answerFloor }];
}

export const ROUTES: ReadonlyMap<string, Route> = new Map<string, Route>([
  route('attestation/options', (ctx, body, read) => attestationOptions(ctx, read.attestationOptions(body))),
  route('attestation/result', (ctx, body, read) => attestationResult(ctx, read.attestationResult(body))),
  // Who is registered could be told by when these are answered: options by name (the nameless one exempts
  // itself), and a failed result (an unknown user's stand-in, or a probe of a credential id, fails too).
  route('assertion/options', (ctx, body, read) => assertionOptions(ctx, read.assertionOptions(body)), 'every'),
  route('assertion/result', (ctx, body, read) => assertionResult(ctx, read.assertionResult(body)), 'failed'),
  route('credentials/list', (ctx, body, read) => listOwnCredentials(ctx, read.credentialsList(body))),
  route('credentials/delete', (ctx, body, read) => deleteOwnCredential(ctx, read.credentialsDelete(body))),
  route('credentials/rename', (ctx, body, read) => renameOwnCredential(ctx, read.credentialsRename(body))),
]);

export const ALLOWED_METHODS = 'POST';
