// The four operations, and a user's own passkeys (list, delete): path → operation name, request schema,
// operation. Nothing else is routed.

import { assertionOptions } from '../ceremonies/assertion-options.js';
import { assertionResult } from '../ceremonies/assertion-result.js';
import { attestationOptions } from '../ceremonies/attestation-options.js';
import { attestationResult } from '../ceremonies/attestation-result.js';
import type { CeremonyContext } from '../ceremonies/context.js';
import { deleteOwnCredential, listOwnCredentials } from '../ceremonies/own-credentials.js';
import type { OperationOutcome } from '../service.js';
import type { RequestReaders } from './requests.js';

export type OperationName = Exclude<OperationOutcome['operation'], 'other'>;

export interface Route {
  readonly operation: OperationName;
  /** Checks the parsed JSON body against the schema, then runs the ceremony; resolves to the ok fields. */
  run(ctx: CeremonyContext, body: unknown, read: RequestReaders): Promise<Record<string, unknown>>;
}

export const ROUTES: ReadonlyMap<string, Route> = new Map<string, Route>([
  [
    '/api/attestation/options',
    {
      operation: 'attestation/options',
      run: (ctx, body, read) => attestationOptions(ctx, read.attestationOptions(body)),
    },
  ],
  [
    '/api/attestation/result',
    {
      operation: 'attestation/result',
      run: (ctx, body, read) => attestationResult(ctx, read.attestationResult(body)),
    },
  ],
  [
    '/api/assertion/options',
    {
      operation: 'assertion/options',
      run: (ctx, body, read) => assertionOptions(ctx, read.assertionOptions(body)),
    },
  ],
  [
    '/api/assertion/result',
    {
      operation: 'assertion/result',
      run: (ctx, body, read) => assertionResult(ctx, read.assertionResult(body)),
    },
  ],
  [
    '/api/credentials/list',
    {
      operation: 'credentials/list',
      run: (ctx, body, read) => listOwnCredentials(ctx, read.credentialsList(body)),
    },
  ],
  [
    '/api/credentials/delete',
    {
      operation: 'credentials/delete',
      run: (ctx, body, read) => deleteOwnCredential(ctx, read.credentialsDelete(body)),
    },
  ],
]);

export const ALLOWED_METHODS = 'POST';
