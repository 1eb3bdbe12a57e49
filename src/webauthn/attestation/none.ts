// "none" attestation (WebAuthn L3 §8.7): no statement, so attStmt must be an empty map.

import { FidoError } from '../../errors/catalogue.js';
import type { AttestationFormat } from './types.js';

export const none: AttestationFormat = {
  fmt: 'none',
  verify({ attStmt }) {
    if (attStmt.size !== 0) throw new FidoError('INVALID_ATTESTATION_FORMAT', 'none: attStmt must be an empty map');
    return { type: 'none', trustPath: [] };
  },
};
