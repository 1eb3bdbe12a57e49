// The browser helper's public export: the service's options JSON ⇄ navigator.credentials, and sentences
// for users. Importing it touches no browser global, so server-side rendering and Node.js tests can load it.
export { base64urlToBuffer, bufferToBase64url } from './base64url.js';
export { creationOptionsFromJSON, requestOptionsFromJSON } from './options.js';
export type { OptionsJSON } from './options.js';
export { credentialToJSON } from './credential.js';
export type { CredentialJSON, CredentialLike } from './credential.js';
export { describeWebAuthnError, webAuthnAvailability } from './browser-errors.js';
export type { Ceremony } from './browser-errors.js';
export { describeFailure, ENGLISH_SENTENCES, sentenceKeyOf, userMessage } from './service-errors.js';
export type { Failure, SentenceKey, UserSentences } from './service-errors.js';
