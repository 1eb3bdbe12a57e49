// Webhooks in the config file: the check of `applications[].webhooks[].url` no shape can say (https, or
// http:// to a loopback host only with `webhookDelivery.allowLoopbackHttp`; the admin API checks the URLs
// of the webhooks it adds with the same rule), the delivery settings' defaults, and the `env:<NAME>`
// secrets read from the environment once at start.
import type { ServiceConfig } from '../config.js';
import { WebhookDeliverySchema } from '../schemas/webhooks.js';
import { withDefaults } from '../schemas/typebox.js';

export type WebhookDelivery = NonNullable<ServiceConfig['webhookDelivery']>;

/** `webhookDelivery` of a configuration that sets none (the schema's defaults). */
export const WEBHOOK_DELIVERY_DEFAULTS = withDefaults(WebhookDeliverySchema, {}) as WebhookDelivery;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Why a webhook URL is refused, or undefined: https anywhere; http only to a loopback host when allowed. */
export function webhookUrlProblem(text: string, allowLoopbackHttp: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${JSON.stringify(text)} is not a URL`;
  }
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
  if (url.hash !== '') return 'must not have a fragment';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) {
    return allowLoopbackHttp
      ? undefined
      : 'http:// is accepted only to a loopback address and only with webhookDelivery.allowLoopbackHttp: true (tests, development); use https://';
  }
  return 'must be an https:// URL';
}

const SECRET = /^whsec_[A-Za-z0-9+/]{22,}={0,2}$/;

/**
 * The `env:<NAME>` secrets of every application's webhooks, read from `env`: name → `whsec_…`. A variable
 * that is unset or not a `whsec_` secret is a problem (the service must not start without it).
 */
export function readWebhookSecrets(
  config: ServiceConfig,
  env: Readonly<Record<string, string | undefined>>,
  problems: string[],
): ReadonlyMap<string, string> {
  const secrets = new Map<string, string>();
  config.applications.forEach((app, i) => {
    (app.webhooks ?? []).forEach((webhook, j) => {
      if (!webhook.secret.startsWith('env:')) return;
      const name = webhook.secret.slice(4);
      const value = env[name]?.trim();
      if (value === undefined || !SECRET.test(value)) {
        problems.push(
          `applications[${i}].webhooks[${j}].secret: the environment variable ${name} must hold a "whsec_<base64>" secret`,
        );
        return;
      }
      secrets.set(name, value);
    });
  });
  return secrets;
}
