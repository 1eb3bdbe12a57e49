// The demo's relay secret (docs/demo.md): generated on the demo's first start and kept with its data
// (`<dataDir>/demo-relay-secret`, mode 0600), so the application the demo serves asks for a relay secret
// like a production one should, and the demo's relay sends it. The secret never goes to a log.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApplicationConfig, ServiceConfig } from '../service-config.js';
import { newRelaySecret, relaySecretHash } from '../config/relay-secret-entries.js';

export const DEMO_RELAY_SECRET_FILE = 'demo-relay-secret';
const SECRET = /^prs_[A-Za-z0-9_-]{43}$/;

/** The demo's secret from `<dataDir>/demo-relay-secret`, made there (0600) on first start. */
export function ensureDemoRelaySecret(dataDir: string, randomBytes: (size: number) => Buffer): string {
  const file = join(dataDir, DEMO_RELAY_SECRET_FILE);
  try {
    const kept = readFileSync(file, 'utf8').trim();
    if (SECRET.test(kept)) return kept;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = newRelaySecret(randomBytes);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}

/**
 * The configuration with the demo's secret added to the application the demo serves (the first one), when
 * the demo is on; the secret is null otherwise.
 */
export function withDemoRelaySecret(
  config: ServiceConfig,
  randomBytes: (size: number) => Buffer,
): { readonly config: ServiceConfig; readonly demoRelaySecret: string | null } {
  const [served, ...others] = config.applications;
  if (!config.demo.enabled || served === undefined) return { config, demoRelaySecret: null };
  const secret = ensureDemoRelaySecret(config.dataDir, randomBytes);
  const hash = relaySecretHash(secret);
  const relaySecrets = [...(served.relaySecrets ?? []).filter((entry) => entry !== hash), hash];
  return { config: { ...config, applications: [{ ...served, relaySecrets }, ...others] }, demoRelaySecret: secret };
}

/** The applications that ask for no relay secret (a warning at start, a line of `check-config`). */
export function applicationsWithoutRelaySecrets(applications: readonly ApplicationConfig[]): string[] {
  return applications.filter((app) => (app.relaySecrets ?? []).length === 0).map((app) => app.clientId);
}
