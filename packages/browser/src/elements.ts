// `@passkey-server/browser/elements`: the whole package, with <passkey-sign-in> and <passkey-list>
// defined on import (where the page has customElements). Also the entry of the relay's passkeys.mjs and
// passkeys.js (global `Passkeys`).
import { defineElements } from './elements/define.js';

export * from './index.js';

if (typeof customElements !== 'undefined') defineElements();
