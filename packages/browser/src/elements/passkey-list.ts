// <passkey-list relay="/relay">: the signed-in user's passkeys (provider name and icon, synced or on one
// device, created, last used), "Add a passkey", and "Delete" after a confirmation in place. Every answer's
// signals go to the browser (Signal API), so a password manager drops a deleted passkey. Events (bubbling,
// composed): `passkey-added` (detail: the service's answer), `passkey-deleted` (detail: `{credentialId}`),
// `passkey-error` (detail: the PasskeyError). `data-state`: loading, ready, working, error. `reload()`
// fetches the list again.
import { deletePasskey, listPasskeys, register, renamePasskey } from '../calls.js';
import { shownName } from '../shown-name.js';
import type { PasskeyError } from '../relay-client.js';
import type { PasskeyInfo, PasskeyList } from '../types.js';
import { elementBase, type PasskeyElement } from './base.js';
import { build, KEY_ICON, shadowOf } from './dom.js';
import { LIST_TEXTS, type ListTexts } from './texts.js';

export interface PasskeyListElement extends PasskeyElement<ListTexts> {
  /** Fetches the list again (e.g. after the user signed in on the same page). */
  reload(): Promise<void>;
}

export function listElementClass(): CustomElementConstructor {
  return class PasskeyListView extends elementBase<ListTexts>(LIST_TEXTS) implements PasskeyListElement {
    #list: PasskeyList | undefined;
    #confirming: string | undefined;
    #renaming: string | undefined;
    /** Ends this element's calls (a registration's dialog included) once it leaves the page. */
    #alive = new AbortController();
    #note: { text: string; error: boolean } = { text: '', error: false };

    connectedCallback(): void {
      if (this.#alive.signal.aborted) this.#alive = new AbortController();
      void this.reload();
    }

    disconnectedCallback(): void {
      this.#alive.abort();
    }

    #options(): ReturnType<typeof this.callOptions> & { signal: AbortSignal } {
      return { ...this.callOptions(), signal: this.#alive.signal };
    }

    async reload(): Promise<void> {
      this.dataset.state = 'loading';
      this.render();
      try {
        this.#list = await listPasskeys(this.#options());
        this.dataset.state = 'ready';
      } catch (error) {
        if (!this.#alive.signal.aborted) this.failed(error);
      }
      this.render();
    }

    async #act(work: () => Promise<string>): Promise<void> {
      this.dataset.state = 'working';
      this.#note = { text: this.text('working'), error: false };
      this.render();
      try {
        const note = await work();
        this.#list = await listPasskeys(this.#options());
        this.#note = { text: note, error: false };
        this.dataset.state = 'ready';
      } catch (error) {
        if (!this.#alive.signal.aborted) this.failed(error);
      }
      this.render();
    }

    override showFailure(failure: PasskeyError): void {
      this.#note = { text: failure.message, error: true };
    }

    #add(): void {
      const username = this.#list?.username;
      if (username === undefined) return;
      void this.#act(async () => {
        const answer = await register({ username, ...this.#options() });
        this.dispatchEvent(new CustomEvent('passkey-added', { detail: answer, bubbles: true, composed: true }));
        return this.text('added');
      });
    }

    #delete(credentialId: string): void {
      this.#confirming = undefined;
      void this.#act(async () => {
        await deletePasskey({ credentialId, ...this.#options() });
        this.dispatchEvent(
          new CustomEvent('passkey-deleted', { detail: { credentialId }, bubbles: true, composed: true }),
        );
        return this.text('deleted');
      });
    }

    #rename(credentialId: string, nickname: string): void {
      this.#renaming = undefined;
      void this.#act(async () => {
        const value = nickname.trim() === '' ? null : nickname;
        const answer = await renamePasskey({ credentialId, nickname: value, ...this.#options() });
        this.dispatchEvent(
          new CustomEvent('passkey-renamed', {
            detail: { credentialId, nickname: answer.nickname ?? null },
            bubbles: true,
            composed: true,
          }),
        );
        return this.text('renamed');
      });
    }

    override render(): void {
      const root = shadowOf(this);
      const section = build('section', 'container');
      const header = build('div', 'header');
      header.append(
        build('h2', 'heading', {}, this.text('heading')),
        build('p', 'intro', { class: 'muted' }, this.text('intro')),
      );
      // Whose passkeys: the display name, else the name before `#` (never the domain).
      if (this.#list !== undefined)
        header.append(build('p', 'account', { class: 'muted' }, `${this.text('account')} ${shownName(this.#list)}`));
      section.append(header);
      const busy = this.dataset.state === 'working' || this.dataset.state === 'loading';
      if (this.dataset.state === 'loading')
        section.append(build('p', 'loading', { class: 'muted' }, this.text('loading')));
      const credentials = this.#list?.credentials ?? [];
      if (this.#list !== undefined && credentials.length === 0)
        section.append(build('p', 'empty', { class: 'muted' }, this.text('empty')));
      if (credentials.length > 0) {
        const list = build('ul', 'list');
        for (const credential of credentials) list.append(this.#row(credential, busy));
        section.append(list);
      }
      if (this.#list !== undefined) {
        const add = build('button', 'button add', { type: 'button', class: 'primary' }, this.text('add'));
        add.disabled = busy;
        add.addEventListener('click', () => this.#add());
        section.append(add);
      }
      const message = build(
        'p',
        this.#note.error ? 'message error' : 'message',
        { class: this.#note.error ? 'message error' : 'message', role: 'status', 'aria-live': 'polite' },
        this.#note.text,
      );
      section.append(message);
      root.append(section);
    }

    #row(credential: PasskeyInfo, busy: boolean): HTMLLIElement {
      const item = build('li', 'item', { 'data-credential-id': credential.credentialId });
      const dark = typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;
      const icon = (dark ? credential.authenticatorIconDark : credential.authenticatorIconLight) ?? KEY_ICON;
      item.append(build('img', 'icon', { src: icon, alt: '' }));
      const name = credential.nickname ?? credential.authenticatorName ?? this.text('unnamed');
      item.append(build('p', 'name', { class: 'name' }, name));
      const facts = [
        credential.backupEligible ? this.text('synced') : this.text('deviceBound'),
        `${this.text('created')} ${this.#date(credential.createdAt)}`,
        `${this.text('lastUsed')} ${credential.lastUsedAt === null ? this.text('never') : this.#date(credential.lastUsedAt)}`,
      ];
      item.append(build('p', 'facts', { class: 'facts muted' }, facts.join(' · ')));
      const actions = build('div', 'actions', { class: 'actions' });
      const remove = build('button', 'button delete', { type: 'button', class: 'danger' }, this.text('delete'));
      remove.disabled = busy;
      remove.addEventListener('click', () => {
        this.#confirming = credential.credentialId;
        this.render();
      });
      const rename = build('button', 'button rename', { type: 'button' }, this.text('rename'));
      rename.disabled = busy;
      rename.addEventListener('click', () => {
        this.#renaming = credential.credentialId;
        this.#confirming = undefined;
        this.render();
      });
      actions.append(rename, remove);
      item.append(actions);
      if (this.#renaming === credential.credentialId) item.append(this.#renameForm(credential));
      if (this.#confirming === credential.credentialId) {
        const confirm = build('div', 'confirm', { class: 'confirm', role: 'alertdialog' });
        const yes = build(
          'button',
          'button confirm-delete',
          { type: 'button', class: 'danger' },
          this.text('confirmYes'),
        );
        const no = build('button', 'button cancel', { type: 'button' }, this.text('confirmNo'));
        yes.addEventListener('click', () => this.#delete(credential.credentialId));
        no.addEventListener('click', () => {
          this.#confirming = undefined;
          this.render();
        });
        confirm.append(build('p', 'confirm-text', {}, this.text('confirm')), yes, no);
        item.append(confirm);
      }
      return item;
    }

    /** The rename form in place: the name (empty clears it), Save, Cancel; Escape cancels. */
    #renameForm(credential: PasskeyInfo): HTMLFormElement {
      const form = build('form', 'rename-form', { class: 'confirm' });
      const input = build('input', 'rename-input', {
        'aria-label': this.text('renameLabel'),
        maxlength: '64',
        autocomplete: 'off',
      });
      input.value = credential.nickname ?? '';
      const save = build('button', 'button rename-save', { type: 'submit', class: 'primary' }, this.text('renameSave'));
      const cancel = build('button', 'button rename-cancel', { type: 'button' }, this.text('confirmNo'));
      const close = () => {
        this.#renaming = undefined;
        this.render();
      };
      cancel.addEventListener('click', close);
      input.addEventListener('keydown', (event) => {
        if (event.key === 'Escape') close();
      });
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        this.#rename(credential.credentialId, input.value);
      });
      form.append(input, save, cancel);
      queueMicrotask(() => input.focus());
      return form;
    }

    #date(iso: string): string {
      const date = new Date(iso);
      if (Number.isNaN(date.getTime())) return iso;
      const lang = this.closest('[lang]')?.getAttribute('lang') || undefined;
      return new Intl.DateTimeFormat(lang, { dateStyle: 'medium' }).format(date);
    }
  };
}
