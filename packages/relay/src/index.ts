// The relay's public export: everything an integrator (and the demo) may use.
// Its types name node:http's request and response, so the declarations pull in Node.js's types even in a
// project whose tsconfig lists no `types` (the default of `tsc --init`).
/// <reference types="node" preserve="true" />
export { createRelay, RELAY_OPERATIONS, WELL_KNOWN_WEBAUTHN } from './relay.js';
export type { Relay, RelayAnswer, RelayInput, RelayOperation } from './relay.js';
export { expressRelay, fastifyRelay } from './adapters.js';
export type { FastifyLike, FastifyReplyLike, FastifyRequestLike } from './adapters.js';
export { MemoryLocalStore, FileLocalStore } from './local-store.js';
export type { LocalCredential, LocalCredentialStore, LocalPasskeyFacts } from './local-store.js';
export type {
  RelayOptions,
  HookRequest,
  RelayVariant,
  RegistrationRequest,
  RegistrationDecision,
  CeremonyResult,
  CredentialsSession,
  RelayLogger,
} from './options.js';
export { RELAY_ERRORS } from './errors.js';
export type { Envelope, RelayErrorName } from './errors.js';
export { relatedOriginsDocument } from './related-origins.js';
export { WELL_KNOWN_PASSKEY_ENDPOINTS } from './assets.js';
export type { Asset } from './assets.js';
