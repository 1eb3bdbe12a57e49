// What both custom elements are made of beside their own markup: replaceable texts (`texts`, a partial
// table over the English defaults), replaceable failure sentences (`messages`), the relay base path from
// the `relay` attribute, and a failure shown as `data-state="error"` plus a `passkey-error` event. Made by
// a function, like the elements, so importing the package never touches HTMLElement.
import { PasskeyError } from '../relay-client.js';
import type { UserSentences } from '../service-errors.js';

/** The members both elements have, beside HTMLElement's. */
export interface PasskeyElement<Texts> extends HTMLElement {
  /** Replaces some or all of its texts (translation); the rest stay English. */
  texts: Partial<Texts>;
  /** Replaces some or all of the failure sentences (service-errors.ts keys). */
  messages: Partial<UserSentences>;
}

/** The base an element class extends; `render()` draws its shadow root again. */
export interface ElementBase<Texts> {
  new (): PasskeyElement<Texts> & {
    text(key: keyof Texts): string;
    callOptions(): { relay: string | undefined; messages: Partial<UserSentences> };
    failed(error: unknown): PasskeyError;
    showFailure(failure: PasskeyError): void;
    render(): void;
  };
}

export function elementBase<Texts extends Readonly<Record<string, string>>>(defaults: Texts): ElementBase<Texts> {
  return class PasskeyElementBase extends HTMLElement {
    #texts: Partial<Texts> = {};
    #messages: Partial<UserSentences> = {};

    get texts(): Partial<Texts> {
      return this.#texts;
    }
    set texts(value: Partial<Texts>) {
      this.#texts = { ...value };
      if (this.isConnected) this.render();
    }
    get messages(): Partial<UserSentences> {
      return this.#messages;
    }
    set messages(value: Partial<UserSentences>) {
      this.#messages = { ...value };
    }

    text(key: keyof Texts): string {
      return this.#texts[key] ?? defaults[key]!;
    }

    /** What every high-level call of this element takes: its `relay` attribute and its sentences. */
    callOptions(): { relay: string | undefined; messages: Partial<UserSentences> } {
      const relay = this.getAttribute('relay');
      return { relay: relay === null || relay === '' ? undefined : relay, messages: this.#messages };
    }

    /** Marks the element failed, shows the user's sentence (showFailure), then tells the page (`passkey-error`). */
    failed(error: unknown): PasskeyError {
      const failure = error instanceof PasskeyError ? error : new PasskeyError('UNKNOWN_ERROR', String(error));
      this.dataset.state = 'error';
      this.dataset.error = failure.name;
      this.showFailure(failure);
      this.dispatchEvent(new CustomEvent('passkey-error', { detail: failure, bubbles: true, composed: true }));
      return failure;
    }

    showFailure(_failure: PasskeyError): void {}

    render(): void {}
  };
}
