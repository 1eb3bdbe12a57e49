// Webhooks in the config file: the check of `applications[].webhooks[].url` no shape can say (https, or
// http:// to a loopback host only with `webhookDelivery.allowLoopbackHttp`; an address literal that is not
// public only with `webhookDelivery.allowPrivateAddresses`; the admin API checks the URLs of the webhooks
// it adds with the same rule, then resolves their host: webhooks/destination.ts), how a URL is shown (its
// query redacted), the delivery settings' defaults, and the `env:<NAME>` secrets read from the environment
// once at start.
import type { ServiceConfig } from '../service-config.js';
import { WebhookDeliverySchema } from '../schemas/webhook-shapes.js';
import { withDefaults } from '../schemas/typebox.js';
import { literalHostProblem } from '../util/outbound-host.js';

export type WebhookDelivery = NonNullable<ServiceConfig['webhookDelivery']>;

/** `webhookDelivery` of a configuration that sets none (the schema's defaults). */
export const WEBHOOK_DELIVERY_DEFAULTS = withDefaults(WebhookDeliverySchema, {}) as WebhookDelivery;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** What a webhook URL may be: the two `webhookDelivery` switches. */
export interface WebhookUrlRules {
  /** http:// to a loopback host (tests, development). */
  readonly allowLoopbackHttp: boolean;
  /** Hosts that are, or resolve to, loopback, private, link-local or unique-local addresses. */
  readonly allowPrivateAddresses: boolean;
}

export const STRICT_WEBHOOK_URL_RULES: WebhookUrlRules = { allowLoopbackHttp: false, allowPrivateAddresses: false };

/** The rules of a configuration's `webhookDelivery` (the strict ones when it has none). */
export function webhookUrlRules(config: Pick<ServiceConfig, 'webhookDelivery'>): WebhookUrlRules {
  return {
    allowLoopbackHttp: config.webhookDelivery?.allowLoopbackHttp === true,
    allowPrivateAddresses: config.webhookDelivery?.allowPrivateAddresses === true,
  };
}

/** What replaces a URL's query where it is shown (receivers often put a token there). */
export const REDACTED_QUERY = '?…';

// C0 controls, DEL and C1 controls: never part of a URL as written (PostgreSQL cannot even store a NUL).
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Why a webhook URL is refused, or undefined: https anywhere; http only to a loopback host when allowed; a
 * host that is a non-public address (or a localhost name) only when private addresses are allowed. A host
 * name that resolves to one is refused by webhooks/destination.ts (when added, and at every delivery).
 */
export function webhookUrlProblem(text: string, rules: WebhookUrlRules): string | undefined {
  if (CONTROL.test(text)) return 'must not contain control characters';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${JSON.stringify(text)} is not a URL`;
  }
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
  if (url.hash !== '') return 'must not have a fragment';
  if (url.search === '?%E2%80%A6')
    return `ends in ${REDACTED_QUERY}, the redacted form a list shows: give the whole URL with its query`;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) {
    if (!rules.allowLoopbackHttp)
      return 'http:// is accepted only to a loopback address and only with webhookDelivery.allowLoopbackHttp: true (tests, development); use https://';
  } else if (url.protocol !== 'https:') return 'must be an https:// URL';
  return literalHostProblem(url, rules.allowPrivateAddresses);
}

/** The URL as lists and the audit log show it: its query, if any, replaced by `?…`. */
export function redactedUrl(text: string): string {
  const cut = text.indexOf('?');
  return cut < 0 ? text : `${text.slice(0, cut)}${REDACTED_QUERY}`;
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
