// Defaults of every optional key, and the built-in configuration `npm start` uses when no file is given.

import { DEFAULT_ALGORITHMS, DEFAULT_TIMEOUT_MS } from '../config.js';
import type { JsonObject } from './checks.js';

export const DEFAULTS = {
  listen: { host: '127.0.0.1', port: 8787 },
  /** Relative to the config file (or, without a file, the working directory). */
  dataDir: './data',
  /** Inside dataDir when `database` is not given. */
  databaseFile: 'fido2.db',
  /** Inside dataDir when `secretsFile` is not given. */
  secretsFileName: 'secrets.json',
  challenges: 'memory',
  localEnabled: true,
  vendor: 'Vendor',
  limits: { bodyBytes: 65_536, usernameLength: 256, displayNameLength: 256 },
  demo: { host: '127.0.0.1', port: 8443 },
  application: {
    icon: '',
    variants: ['standard', 'local'],
    localOrigins: ['https://localhost'],
    timeoutMs: DEFAULT_TIMEOUT_MS,
    algorithms: DEFAULT_ALGORITHMS,
    userVerification: null,
    counterPolicy: 'strict',
    revealUnknownUsers: false,
    allowCrossOrigin: false,
  },
} as const;

/** The one application of the built-in configuration, served by the demo page. */
export const DEMO_APPLICATION: JsonObject = {
  clientId: 'demo-client',
  name: 'Demo IdP',
  domain: 'demo.localhost',
  origins: ['https://demo.localhost:8443'],
  variants: ['standard', 'local'],
  localOrigins: ['https://localhost:8443'],
};

/** What `serve` runs without --config: SQLite in ./data, memory challenges, the demo on. */
export function builtInConfig(): JsonObject {
  return {
    listen: { host: DEFAULTS.listen.host, port: DEFAULTS.listen.port },
    // No `database`: the default, SQLite at <dataDir>/fido2.db, so PASSKEY_DATA_DIR moves it too.
    challenges: DEFAULTS.challenges,
    local: { enabled: true },
    demo: { enabled: true, host: DEFAULTS.demo.host, port: DEFAULTS.demo.port },
    applications: [structuredClone(DEMO_APPLICATION)],
  };
}
