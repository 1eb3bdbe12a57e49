// The browser helper's public export: the service's options JSON ⇄ navigator.credentials (modal and
// conditional), the Signal API, and sentences for users. Importing it touches no browser global, so
// server-side rendering and Node.js tests can load it.
export { base64urlToBuffer, bufferToBase64url } from './base64url.js';
export { creationOptionsFromJSON, requestOptionsFromJSON } from './options.js';
export type { OptionsJSON } from './options.js';
export { credentialToJSON } from './credential.js';
export type { CredentialJSON, CredentialLike } from './credential.js';
export { describeWebAuthnError, webAuthnAvailability } from './browser-errors.js';
export type { Ceremony } from './browser-errors.js';
export {
  getClientCapabilities,
  isConditionalMediationAvailable,
  startConditionalCreate,
  startConditionalGet,
} from './conditional.js';
export type { ConditionalInit, ConditionalRequest } from './conditional.js';
export {
  sendSignals,
  signalAllAcceptedCredentials,
  signalCurrentUserDetails,
  signalUnknownCredential,
  supportedSignals,
} from './signals.js';
export type {
  AllAcceptedCredentialsOptions,
  CurrentUserDetailsOptions,
  SignalName,
  SignalOutcome,
  Signals,
  UnknownCredentialOptions,
} from './signals.js';
export { describeFailure, ENGLISH_SENTENCES, sentenceKeyOf, userMessage } from './service-errors.js';
export type { Failure, SentenceKey, UserSentences } from './service-errors.js';
