// The request log (docs/operations.md "Logs"): one JSON line per request of the four operations, unless
// `requestLog` is false (an HTTP layer in front logs the requests itself).
import { createRequestLogHooks } from '../../runtime/request-log.js';
import type { OperatorFeature } from '../feature-types.js';

export const requestLogFeature: OperatorFeature = {
  name: 'request-log',
  configKeys: ['requestLog'],
  routes: [],
  stores: [],
  provides: [],
  setup: ({ input }) => ({ hooks: input.options.requestLog ? [createRequestLogHooks(input.log)] : [] }),
};
