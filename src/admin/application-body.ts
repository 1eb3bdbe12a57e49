// An application as the admin API's bodies give it: a JSON object in the config file's shape, validated by
// the config loader's own reader (readApplication), so an application stored through the API and one in the
// config file obey the same rules.
import { isAbsolute, resolve } from 'node:path';
import type { ApplicationConfig } from '../service-config.js';
import { readApplication } from '../config/application.js';
import { Problems } from '../config/checks.js';
import { STRICT_WEBHOOK_URL_RULES, type WebhookUrlRules } from '../config/webhook-urls.js';
import { AdminError } from './errors.js';

/**
 * The application `raw` describes; INVALID_REQUEST lists every problem. Relative paths resolve against
 * `baseDir`; webhook URLs follow `webhookRules` (as in the file; absent: the strict rules).
 */
export function validateApplication(
  raw: Record<string, unknown>,
  baseDir: string,
  webhookRules: WebhookUrlRules = STRICT_WEBHOOK_URL_RULES,
): ApplicationConfig {
  const problems = new Problems();
  const config = readApplication(
    {
      problems,
      resolvePath: (_key, value) => (isAbsolute(value) ? value : resolve(baseDir, value)),
      webhookRules,
    },
    'application',
    raw,
  );
  if (problems.list.length > 0 || config === undefined)
    throw new AdminError(
      'INVALID_REQUEST',
      undefined,
      problems.list.length > 0 ? problems.list : ['application: unusable'],
    );
  return config;
}

/** Relay secrets are never part of an application body: they have their own endpoints (docs/admin.md). */
export function refuseRelaySecrets(raw: Record<string, unknown>): void {
  if ('relaySecrets' in raw)
    throw new AdminError(
      'INVALID_REQUEST',
      'relay secrets are created on their own path (POST /admin/applications/{clientId}/relay-secrets, shown once) or set in the config file (applications[].relaySecrets)',
      ['relaySecrets: not allowed in an application body'],
    );
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asObject(value: unknown): Record<string, unknown> {
  if (!isPlainObject(value))
    throw new AdminError('INVALID_REQUEST', 'the body must be a JSON object', ['(body): must be an object']);
  return value;
}

/** A config value as plain JSON (drops undefined optional fields). */
export function toJson<T>(value: T): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}
