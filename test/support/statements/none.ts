// "none": an empty statement (WebAuthn L3 §8.7).
import type { StatementBuilder } from './types.js';

export const none: StatementBuilder = {
  fmt: 'none',
  build: () => new Map(),
};
