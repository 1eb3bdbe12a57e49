// Registers <passkey-sign-in> and <passkey-list> (once; a second call changes nothing). The classes are
// made here, when called, so importing the package never touches HTMLElement.
import { listElementClass } from './passkey-list.js';
import { signInElementClass } from './sign-in.js';

export const ELEMENT_NAMES = { signIn: 'passkey-sign-in', list: 'passkey-list' } as const;

export function defineElements(registry: CustomElementRegistry = customElements): void {
  if (!registry.get(ELEMENT_NAMES.signIn)) registry.define(ELEMENT_NAMES.signIn, signInElementClass());
  if (!registry.get(ELEMENT_NAMES.list)) registry.define(ELEMENT_NAMES.list, listElementClass());
}
