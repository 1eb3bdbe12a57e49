// What both custom elements draw with: the stylesheet (themable through CSS custom properties, every piece
// named as a `part`), a tiny element builder and the shadow root. Their shared behaviour (texts, messages,
// the relay attribute, failures) is the base class of base.ts.

export const STYLE = `
:host { display: block; font: var(--passkey-font, inherit); color: var(--passkey-text, inherit);
  --_accent: var(--passkey-accent, #2457d6); --_radius: var(--passkey-radius, 8px);
  --_border: var(--passkey-border, #c9ced6); --_muted: var(--passkey-muted, #5b6270);
  --_surface: var(--passkey-surface, transparent); --_danger: var(--passkey-danger, #b3261e);
  --_gap: var(--passkey-gap, 12px); }
:host([hidden]) { display: none; }
* { box-sizing: border-box; }
form, section { display: grid; gap: var(--_gap); background: var(--_surface); }
label { font-weight: 600; }
input { font: inherit; padding: 10px 12px; border: 1px solid var(--_border); border-radius: var(--_radius);
  width: 100%; background: var(--passkey-input-background, #fff); color: inherit; }
button { font: inherit; cursor: pointer; padding: 10px 14px; border-radius: var(--_radius);
  border: 1px solid var(--_border); background: var(--passkey-button-background, transparent); color: inherit; }
button:disabled { opacity: .6; cursor: progress; }
button.primary { background: var(--_accent); border-color: var(--_accent);
  color: var(--passkey-accent-text, #fff); font-weight: 600; }
button.danger { color: var(--_danger); border-color: var(--_danger); }
button.link { border: none; padding: 0; color: var(--_accent); text-decoration: underline; justify-self: start; }
.divider { display: flex; align-items: center; gap: 8px; color: var(--_muted); font-size: .9em; }
.divider::before, .divider::after { content: ""; flex: 1; border-top: 1px solid var(--_border); }
.message { margin: 0; min-height: 1.2em; }
.message.error { color: var(--_danger); }
.muted { color: var(--_muted); font-size: .9em; margin: 0; }
ul { list-style: none; margin: 0; padding: 0; display: grid; gap: var(--_gap); }
li { display: grid; grid-template-columns: 40px 1fr auto; gap: 4px 12px; align-items: center;
  padding: 12px; border: 1px solid var(--_border); border-radius: var(--_radius); }
li img, li svg { width: 32px; height: 32px; grid-row: span 2; }
.name { font-weight: 600; margin: 0; }
.facts { grid-column: 2; }
.actions { grid-column: 3; grid-row: 1 / span 2; display: flex; gap: 8px; flex-wrap: wrap; justify-content: end; }
.confirm { grid-column: 1 / -1; display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
.confirm p { margin: 0; flex: 1 1 16em; }
h2 { margin: 0; font-size: 1.25em; }
`;

/** `<tag part="…" class="…">text</tag>`; `part` names become the element's `::part()` names. */
export function build<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  part: string,
  attributes: Readonly<Record<string, string>> = {},
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (part !== '') node.setAttribute('part', part);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

let sheet: CSSStyleSheet | undefined;

/**
 * A shadow root with the shared stylesheet: adopted as a constructed stylesheet (a page whose Content
 * Security Policy forbids inline styles still styles the elements), a `<style>` where the browser has none.
 */
export function shadowOf(host: HTMLElement): ShadowRoot {
  const root = host.shadowRoot ?? host.attachShadow({ mode: 'open', delegatesFocus: true });
  if ('adoptedStyleSheets' in root && typeof CSSStyleSheet === 'function') {
    if (sheet === undefined) {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(STYLE);
    }
    root.adoptedStyleSheets = [sheet];
    root.replaceChildren();
  } else root.replaceChildren(build('style', '', {}, STYLE));
  return root;
}

/** A generic passkey icon (a key), for passkeys whose provider has no icon. */
export const KEY_ICON =
  'data:image/svg+xml;charset=utf-8,' +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#5b6270" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round"><circle cx="8" cy="15" r="4"/><path d="M11 12l9-9M17 6l3 3M15 8l2 2"/></svg>',
  );
