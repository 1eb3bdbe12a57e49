// The built-in configuration `npm start` uses when no file is given (every key's own default is in the
// schema, src/schemas/config.ts).
import type { Raw } from './checks.js';

/** The one application of the built-in configuration, served by the demo page. */
export const DEMO_APPLICATION: Raw = {
  clientId: 'demo-client',
  name: 'Demo IdP',
  domain: 'demo.localhost',
  origins: ['https://demo.localhost:8443'],
  variants: ['standard', 'local'],
  localOrigins: ['https://localhost:8443'],
};

/** What `serve` runs without --config: SQLite in ./data, memory challenges, the demo on. */
export function builtInConfig(): Raw {
  return {
    // No `database`: the default, SQLite at <dataDir>/fido2.db, so PASSKEY_DATA_DIR moves it too.
    local: { enabled: true },
    demo: { enabled: true },
    applications: [structuredClone(DEMO_APPLICATION)],
  };
}
