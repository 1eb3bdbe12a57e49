// The browser helper's public export: the high-level calls (register, signIn, startAutofill, listPasskeys,
// deletePasskey, renamePasskey), the custom elements (defined by defineElements() or by importing ./elements), and the
// building blocks under them: the service's options JSON ⇄ navigator.credentials (modal and conditional),
// the Signal API, and sentences for users. Importing it touches no browser global, so server-side
// rendering and Node.js tests can load it.
export { deletePasskey, listPasskeys, register, renamePasskey, signIn } from './calls.js';
export type { DeletePasskeyOptions, RegisterOptions, RenamePasskeyOptions, SignInOptions } from './calls.js';
export { shownName } from './shown-name.js';
export { startAutofill } from './autofill.js';
export type { AutofillHandle, AutofillOptions } from './autofill.js';
export { DEFAULT_RELAY, PasskeyError } from './relay-client.js';
export type { CallOptions, ServiceAnswer } from './relay-client.js';
export type { PasskeyInfo, PasskeyList, PasskeyResult } from './types.js';
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
export { defineElements, ELEMENT_NAMES } from './elements/define.js';
export type { PasskeySignInElement } from './elements/sign-in.js';
export type { PasskeyListElement } from './elements/passkey-list.js';
export { LIST_TEXTS, SIGN_IN_TEXTS } from './elements/texts.js';
export type { ListTexts, SignInTexts } from './elements/texts.js';
