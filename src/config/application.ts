// One entry of `applications` (or an application the admin API is given): its shape is the schema's
// (src/schemas/applications.ts, compiled once); here are the checks no shape can say: the domain is a host
// name, origins are in origin form and on the domain, the algorithms are supported, the rules between keys,
// and the `attestation` policy's files (attestation-policy.ts).

import type { ApplicationConfig } from '../service-config.js';
import { ANDROID_ORIGIN_PREFIX, hostMatchesDomain, parseOrigin, type ParsedOrigin } from '../schemas/formats.js';
import { ADDITIVE, APPLICATION_KEYS, ApplicationFileSchema, ATTESTATION_KEYS } from '../schemas/applications.js';
import { configProblems } from '../schemas/config-problems.js';
import { compile, withDefaults } from '../schemas/typebox.js';
import { COSE_ALGORITHMS } from '../webauthn/cose.js';
import { type ApplicationContext, checkAttestation } from './attestation-policy.js';
import { eachEntry, isObject, joinPath, type Raw } from './checks.js';
import { checkRelaySecrets } from './relay-secret-entries.js';
import { STRICT_WEBHOOK_URL_RULES, webhookUrlProblem } from './webhook-urls.js';

export { APPLICATION_KEYS, ATTESTATION_KEYS };
export type { ApplicationContext } from './attestation-policy.js';

/** Every algorithm of the table; RS1 and ML-DSA are offered only when an application lists them. */
const KNOWN_ALGORITHMS = COSE_ALGORITHMS.map((a) => a.alg);
const APPLICATION = compile(ApplicationFileSchema);

/**
 * A stored application (validated when it was written) with the schema's default of every key it lacks: one
 * written before a key with a default existed (`maxPasskeysPerUser`) reads as if written now. The keys added
 * without a default (ADDITIVE) stay absent. Nothing else changes.
 */
export function withSchemaDefaults(config: ApplicationConfig): ApplicationConfig {
  const missing = APPLICATION_KEYS.filter((key) => !(key in config) && DEFAULTS[key] !== undefined);
  if (missing.length === 0) return config;
  return { ...config, ...Object.fromEntries(missing.map((key) => [key, structuredClone(DEFAULTS[key])])) };
}

/** What an application entry holds when it is written without any optional key. */
const DEFAULTS = withDefaults(ApplicationFileSchema, {}) as Readonly<Record<string, unknown>>;

/** An application from untrusted JSON (the admin API's bodies): its shape, then `checkApplication`. */
export function readApplication(ctx: ApplicationContext, path: string, raw: unknown): ApplicationConfig | undefined {
  const before = ctx.problems.list.length;
  ctx.problems.addAll(configProblems(APPLICATION.failures(raw), raw), path);
  if (!isObject(raw)) return undefined;
  const app = checkApplication(ctx, path, withDefaults(ApplicationFileSchema, raw), raw);
  return ctx.problems.list.length > before ? undefined : app;
}

/**
 * The checks beyond the shape of an application whose shape was checked (`app`: with its defaults, `raw`:
 * as written); the application when it has no problem. Paths are resolved and AAGUIDs lowered in `app`.
 */
export function checkApplication(ctx: ApplicationContext, path: string, app: Raw, raw: Raw): ApplicationConfig {
  const { problems } = ctx;
  const at = (key: string) => joinPath(path, key);
  const domain = problems.clean(at('domain')) ? (app.domain as string) : undefined;
  const variants = eachEntry(problems, at('variants'), app.variants);
  const origins = eachEntry(problems, at('origins'), app.origins, (p, v) =>
    problems.addIfAny(p, offDomain(v as string, domain)),
  );
  if (variants?.includes('standard') && problems.clean(at('variants')) && origins?.length === 0) {
    problems.add(at('origins'), 'the standard variant is listed in variants, so at least one origin is required');
  }
  eachEntry(problems, at('localOrigins'), app.localOrigins);
  eachEntry(problems, at('algorithms'), app.algorithms, (p, v) =>
    problems.addIfAny(
      p,
      typeof v === 'number' && KNOWN_ALGORITHMS.includes(v)
        ? undefined
        : `must be one of the supported COSE algorithms ${KNOWN_ALGORITHMS.join(', ')}, got ${JSON.stringify(v)}`,
    ),
  );
  const topOrigins = eachEntry(problems, at('topOrigins'), app.topOrigins ?? []);
  const crossOrigin = problems.clean(at('allowCrossOrigin')) ? app.allowCrossOrigin : undefined;
  if (topOrigins !== undefined && problems.clean(at('topOrigins'))) {
    if (crossOrigin === true && topOrigins.length === 0)
      problems.add(
        at('topOrigins'),
        'allowCrossOrigin is true, so list the top-level origins that may embed a ceremony (clientDataJSON.topOrigin); without them every cross-origin ceremony fails',
      );
    if (crossOrigin === false && topOrigins.length > 0)
      problems.add(
        at('topOrigins'),
        'is set but allowCrossOrigin is not true: top origins matter only to cross-origin ceremonies',
      );
  }
  if (isObject(app.attestation)) checkAttestation(ctx, at('attestation'), app.attestation);
  checkRelaySecrets(problems, at('relaySecrets'), app.relaySecrets, ctx.env);
  const hasSecrets = Array.isArray(app.relaySecrets) && app.relaySecrets.length > 0;
  if (app.requireRelaySecret === false && hasSecrets)
    problems.add(
      at('requireRelaySecret'),
      'is false but relaySecrets lists secrets: a listed secret is always required (remove them first, or leave requireRelaySecret out)',
    );
  eachEntry(problems, at('hints'), app.hints);
  const standard = problems.clean(at('origins')) ? (origins as string[] | undefined) : undefined;
  eachEntry(problems, at('webhooks'), app.webhooks ?? [], (p, v) => {
    const url = isObject(v) ? v.url : undefined;
    if (typeof url === 'string' && problems.clean(joinPath(p, 'url')))
      problems.addIfAny(joinPath(p, 'url'), webhookUrlProblem(url, ctx.webhookRules ?? STRICT_WEBHOOK_URL_RULES));
  });
  eachEntry(problems, at('relatedOrigins'), app.relatedOrigins, (p, v) =>
    problems.addIfAny(p, relatedOriginProblem(v as string, domain, standard)),
  );
  // In the order of the keys, and the newer keys only when written: an application without them stays
  // exactly as before (stored applications compare by value).
  const policy = app.attestation as Raw;
  const attestation = Object.fromEntries(
    ATTESTATION_KEYS.filter((key) => key !== 'metadataCrls' || policy.metadataCrls !== undefined).map((key) => [
      key,
      policy[key],
    ]),
  );
  // An application with relay secrets requires one from then on (docs/decisions.md "Relay secrets stay required").
  if (hasSecrets && app.requireRelaySecret === undefined) app.requireRelaySecret = true;
  const keys = APPLICATION_KEYS.filter(
    (key) =>
      key === 'attestation' ||
      !(ADDITIVE as readonly string[]).includes(key) ||
      raw[key] !== undefined ||
      (key === 'requireRelaySecret' && app.requireRelaySecret !== undefined),
  );
  const ordered = [
    ...keys.filter((key) => !(ADDITIVE as readonly string[]).includes(key)),
    ...ADDITIVE.filter((key) => keys.includes(key)),
  ];
  return Object.fromEntries(
    ordered.map((key) => [key, key === 'attestation' ? attestation : app[key]]),
  ) as unknown as ApplicationConfig;
}

/** An origin (its form checked by the schema, src/schemas/formats.ts) off the application's domain. */
function offDomain(text: string, domain: string | undefined): string | undefined {
  if (text.startsWith(ANDROID_ORIGIN_PREFIX) || domain === undefined) return undefined;
  if (!hostMatchesDomain((parseOrigin(text) as ParsedOrigin).host, domain))
    return `${JSON.stringify(text)} is not on the application's domain ${JSON.stringify(domain)} (or a subdomain of it), so its RP ID could not be used there`;
  return undefined;
}

/** WebAuthn L3 §5.11: an https origin (the schema's check) whose host is NOT on `domain` (those belong in `origins`). */
function relatedOriginProblem(
  text: string,
  domain: string | undefined,
  origins: readonly string[] | undefined,
): string | undefined {
  if (domain !== undefined && hostMatchesDomain((parseOrigin(text) as ParsedOrigin).host, domain))
    return `${JSON.stringify(text)} is on the application's domain ${JSON.stringify(domain)}: list it in origins; relatedOrigins are for other registrable domains`;
  if (origins?.includes(text)) return `${JSON.stringify(text)} is already in origins`;
  return undefined;
}
