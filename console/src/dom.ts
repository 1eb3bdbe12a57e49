// A few DOM helpers: elements built with properties and children (text is always text, never markup),
// tables, the in-page confirmation and the status line.
type Child = Node | string | number | null | undefined | false;
type Props = Record<string, string | number | boolean | EventListener | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, ''), value);
    else if (name === 'class') element.className = String(value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(
      typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child,
    );
  }
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`#${id} missing`);
  return element as T;
}

/** A table with a header row; `rows` are lists of cells. */
export function table(caption: string, headers: readonly string[], rows: readonly Child[][]): HTMLTableElement {
  return h(
    'table',
    {},
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ...headers.map((name) => h('th', { scope: 'col' }, name)))),
    h('tbody', {}, ...rows.map((cells) => h('tr', {}, ...cells.map((cell) => h('td', {}, cell))))),
  );
}

/** Asks in the page's own dialog (a native confirm() would block the page): resolves true on Confirm. */
export function confirmAction(text: string, confirmLabel: string): Promise<boolean> {
  const dialog = byId<HTMLDialogElement>('confirm');
  byId('confirm-text').textContent = text;
  const ok = byId<HTMLButtonElement>('confirm-ok');
  const cancel = byId<HTMLButtonElement>('confirm-cancel');
  ok.textContent = confirmLabel;
  return new Promise((resolve) => {
    const done = (answer: boolean) => {
      ok.removeEventListener('click', yes);
      cancel.removeEventListener('click', no);
      dialog.removeEventListener('cancel', no);
      dialog.close();
      resolve(answer);
    };
    const yes = () => done(true);
    const no = () => done(false);
    ok.addEventListener('click', yes);
    cancel.addEventListener('click', no);
    dialog.addEventListener('cancel', no);
    dialog.showModal();
    cancel.focus();
  });
}

export function say(text: string, kind: 'info' | 'error' = 'info'): void {
  const status = byId('status');
  status.textContent = text;
  status.className = `status ${kind}`;
}

export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** An event handler that runs `fn` and shows its failure on the status line instead of losing it. */
export function guard(fn: () => Promise<void>): () => void {
  return () => {
    fn().catch((error: unknown) => {
      const e = error as { code?: string; message?: string; problems?: string[] };
      const problems = e.problems && e.problems.length > 0 ? ` (${e.problems.join('; ')})` : '';
      say(e.code ? `${e.code}: ${e.message ?? ''}${problems}` : String(error), 'error');
    });
  };
}
