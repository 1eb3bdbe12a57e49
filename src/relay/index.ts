// The relay's public export: everything an integrator (and the demo) may use.
export { createRelay, RELAY_OPERATIONS } from './relay.js';
export type { Relay, RelayAnswer, RelayInput, RelayOperation } from './relay.js';
export { expressRelay, fastifyRelay } from './adapters.js';
export { MemoryLocalStore, FileLocalStore } from './local-store.js';
export type { LocalCredential, LocalCredentialStore } from './local-store.js';
export type { RelayOptions, RelayVariant, RegistrationRequest, RegistrationDecision, CeremonyResult, RelayLogger } from './options.js';
export { RELAY_ERRORS } from './errors.js';
export type { Envelope, RelayErrorName } from './errors.js';
export { relatedOriginsDocument } from './related-origins.js';
