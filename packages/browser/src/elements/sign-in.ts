// <passkey-sign-in relay="/relay">: one identifier field with the browser's autofill list, "Continue"
// (sign-in by name), "Sign in with a passkey" (no name needed) and, with `allow-register`, "Create a
// passkey"; `autofill="off"` leaves out the autofill list. On success it dispatches `passkey-signed-in` (bubbles, composed) whose `detail` is the
// service's answer; a failure shows the user's sentence and dispatches `passkey-error` (detail: the
// PasskeyError). `data-state` (idle, working, signed-in, error) and `data-autofill` (waiting, unavailable,
// failed, stopped, done) say where it is.
import { startAutofill, type AutofillHandle } from '../autofill.js';
import { register, signIn } from '../calls.js';
import type { PasskeyError } from '../relay-client.js';
import { shownName } from '../shown-name.js';
import type { PasskeyResult } from '../types.js';
import { elementBase, type PasskeyElement } from './base.js';
import { build, shadowOf } from './dom.js';
import { SIGN_IN_TEXTS, type SignInTexts } from './texts.js';

/** The element's own members, beside HTMLElement's: `texts` and `messages` (translation). */
export type PasskeySignInElement = PasskeyElement<SignInTexts>;

export function signInElementClass(): CustomElementConstructor {
  return class PasskeySignIn extends elementBase<SignInTexts>(SIGN_IN_TEXTS) {
    static observedAttributes = ['allow-register'];
    #autofill: AutofillHandle | undefined;
    #input: HTMLInputElement | undefined;
    #message: HTMLParagraphElement | undefined;
    #buttons: HTMLButtonElement[] = [];
    /** Ends this element's ceremonies (its autofill and a running one) once it leaves the page. */
    #alive = new AbortController();

    connectedCallback(): void {
      if (this.#alive.signal.aborted) this.#alive = new AbortController();
      this.render();
      this.#startAutofill();
    }

    disconnectedCallback(): void {
      // Removed from the page: the browser's passkey dialog closes and nothing more is sent.
      this.#alive.abort();
      void this.#autofill?.stop();
      this.#autofill = undefined;
    }

    attributeChangedCallback(): void {
      if (this.isConnected) this.render();
    }

    override render(): void {
      const root = shadowOf(this);
      const value = this.#input?.value ?? '';
      const form = build('form', 'form', { novalidate: '' });
      const label = build('label', 'label', { for: 'username' }, this.text('label'));
      const input = build('input', 'input', {
        id: 'username',
        name: 'username',
        type: 'text',
        autocomplete: 'username webauthn',
        autocapitalize: 'none',
        spellcheck: 'false',
      });
      if (this.text('placeholder') !== '') input.placeholder = this.text('placeholder');
      input.value = value;
      const next = build('button', 'button continue', { type: 'submit', class: 'primary' }, this.text('continue'));
      const divider = build('div', 'divider', { class: 'divider' }, this.text('or'));
      const passkey = build('button', 'button passkey', { type: 'button' }, this.text('passkey'));
      const message = build('p', 'message', { class: 'message', role: 'status', 'aria-live': 'polite' });
      form.append(label, input, next, divider, passkey);
      this.#buttons = [next, passkey];
      if (this.hasAttribute('allow-register')) {
        const create = build('button', 'button register', { type: 'button', class: 'link' }, this.text('register'));
        form.append(build('p', 'hint', { class: 'muted' }, this.text('registerHint')), create);
        create.addEventListener('click', () => this.#withName((username) => register(this.#call({ username }))));
        this.#buttons.push(create);
      }
      form.append(message);
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        this.#withName((username) => signIn(this.#call({ username })));
      });
      passkey.addEventListener('click', () => void this.#run(() => signIn(this.#call({}))));
      root.append(form);
      this.#input = input;
      this.#message = message;
      if (!this.dataset.state) this.dataset.state = 'idle';
    }

    #call<T extends object>(extra: T): T & ReturnType<typeof this.callOptions> & { signal: AbortSignal } {
      return { ...extra, ...this.callOptions(), signal: this.#alive.signal };
    }

    #withName(run: (username: string) => Promise<PasskeyResult>): void {
      const username = this.#input?.value.trim() ?? '';
      if (username === '') {
        this.#show(this.text('needName'), true);
        this.#input?.focus();
        return;
      }
      void this.#run(() => run(username));
    }

    #startAutofill(): void {
      if (this.#autofill !== undefined) return;
      if (this.getAttribute('autofill') === 'off') {
        this.dataset.autofill = 'off';
        return;
      }
      const handle = startAutofill({
        ...this.callOptions(),
        signal: this.#alive.signal,
        input: this.#input,
        onError: (error) => this.failed(error),
      });
      this.#autofill = handle;
      this.dataset.autofill = 'waiting';
      handle.result.then(
        (result) => {
          if (this.#autofill === handle) this.#autofill = undefined;
          if (result) {
            this.dataset.autofill = 'done';
            this.#signedIn(result);
          } else if (this.dataset.autofill === 'waiting') this.dataset.autofill = 'stopped';
        },
        () => {
          // The browser refused the autofill request (no passkey here, or automation): the buttons still work.
          if (this.#autofill === handle) this.#autofill = undefined;
          this.dataset.autofill = 'failed';
        },
      );
    }

    async #run(ceremony: () => Promise<PasskeyResult>): Promise<void> {
      this.#busy(true);
      this.#show(this.text('working'), false);
      try {
        this.#signedIn(await ceremony());
      } catch (error) {
        if (!this.#alive.signal.aborted) this.failed(error); // removed from the page: nobody to tell
      } finally {
        this.#busy(false);
      }
    }

    #busy(on: boolean): void {
      for (const button of this.#buttons) button.disabled = on;
      if (on) this.dataset.state = 'working';
    }

    #signedIn(result: PasskeyResult): void {
      this.dataset.state = 'signed-in';
      // Who, as the user knows themselves: the display name, else the name before `#`, never the domain.
      this.#show(`${this.text('signedIn')} ${shownName(result)}`, false);
      this.dispatchEvent(new CustomEvent('passkey-signed-in', { detail: result, bubbles: true, composed: true }));
    }

    override showFailure(failure: PasskeyError): void {
      this.#show(failure.message, true);
    }

    #show(text: string, isError: boolean): void {
      if (!this.#message) return;
      this.#message.textContent = text;
      this.#message.classList.toggle('error', isError);
      this.#message.setAttribute('part', isError ? 'message error' : 'message');
    }
  };
}
