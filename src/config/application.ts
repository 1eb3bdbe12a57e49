// Validation of one entry of `applications`: a Client ID, its domain and origins, and its policy (its
// `attestation` policy in attestation-policy.ts).

import {
  ANDROID_ORIGIN_PREFIX,
  DEFAULT_ALGORITHMS,
  HINTS,
  type ApplicationConfig,
  type BackupEligibilityPolicy,
  type Hint,
  type UserVerification,
  type Variant,
} from '../config.js';
import { APPLICATION_KEYS, ATTESTATION_KEYS, MAX_TIMEOUT_MS, MIN_TIMEOUT_MS } from '../schemas/applications.js';
import { type ApplicationContext, emptyPolicy, readAttestation } from './attestation-policy.js';
import { DEFAULTS } from './defaults.js';
import {
  joinPath,
  readArray,
  readBoolean,
  readEnum,
  readInteger,
  readObject,
  readString,
  type Problems,
} from './checks.js';
import { androidOriginProblem, domainProblem, hostMatchesDomain, parseOrigin } from './web.js';

export { APPLICATION_KEYS, ATTESTATION_KEYS };
export type { ApplicationContext } from './attestation-policy.js';

/** A Client ID travels in `User-agent: <vendor> AppID: <client id>`: visible ASCII, no spaces. */
export const CLIENT_ID_PATTERN = /^[\x21-\x7e]{1,128}$/;
/** RS1 is offered only when an application lists it explicitly. */
const KNOWN_ALGORITHMS = [...DEFAULT_ALGORITHMS, -65535];

export function readApplication(ctx: ApplicationContext, path: string, raw: unknown): ApplicationConfig | undefined {
  const { problems } = ctx;
  const app = readObject(problems, path, raw, APPLICATION_KEYS);
  if (app === undefined) return undefined;
  const at = (key: string) => joinPath(path, key);
  const optional = <T>(key: string, fallback: T, read: (p: string, v: unknown) => T | undefined): T | undefined =>
    app[key] === undefined ? fallback : read(at(key), app[key]);

  const clientId = readString(problems, at('clientId'), app.clientId, {
    max: 128,
    pattern: CLIENT_ID_PATTERN,
    hint: 'visible ASCII characters without spaces, at most 128',
  });
  const name = readString(problems, at('name'), app.name, { max: 256 });
  const icon = optional('icon', DEFAULTS.application.icon, (p, v) => readString(problems, p, v, { min: 0, max: 2048 }));
  const domain = readDomain(problems, at('domain'), app.domain);
  const variants = optional<Variant[]>('variants', [...DEFAULTS.application.variants], (p, v) =>
    readArray(problems, p, v, (ip, iv) => readEnum<Variant>(problems, ip, iv, ['standard', 'local']), { min: 1 }),
  );
  const origins = optional<string[]>('origins', [], (p, v) =>
    readArray(problems, p, v, (ip, iv) => readStandardOrigin(problems, ip, iv, domain)),
  );
  if (variants?.includes('standard') && origins !== undefined && origins.length === 0) {
    problems.add(at('origins'), 'the standard variant is listed in variants, so at least one origin is required');
  }
  const localOrigins = optional<string[]>('localOrigins', [...DEFAULTS.application.localOrigins], (p, v) =>
    readArray(problems, p, v, (ip, iv) => readLocalOrigin(problems, ip, iv)),
  );
  const timeoutMs = optional('timeoutMs', DEFAULTS.application.timeoutMs, (p, v) =>
    readInteger(problems, p, v, MIN_TIMEOUT_MS, MAX_TIMEOUT_MS),
  );
  const algorithms = optional<number[]>('algorithms', [...DEFAULTS.application.algorithms], (p, v) =>
    readArray(problems, p, v, (ip, iv) => readAlgorithm(problems, ip, iv), { min: 1 }),
  );
  const userVerification = optional<UserVerification | null>(
    'userVerification',
    DEFAULTS.application.userVerification,
    (p, v) =>
      v === null ? null : readEnum<UserVerification>(problems, p, v, ['required', 'preferred', 'discouraged']),
  );
  const counterPolicy = optional<'strict' | 'warn'>('counterPolicy', DEFAULTS.application.counterPolicy, (p, v) =>
    readEnum(problems, p, v, ['strict', 'warn']),
  );
  const revealUnknownUsers = optional('revealUnknownUsers', DEFAULTS.application.revealUnknownUsers, (p, v) =>
    readBoolean(problems, p, v),
  );
  const allowCrossOrigin = optional('allowCrossOrigin', DEFAULTS.application.allowCrossOrigin, (p, v) =>
    readBoolean(problems, p, v),
  );
  const topOrigins = optional<string[]>('topOrigins', [], (p, v) =>
    readArray(problems, p, v, (ip, iv) => readParsedOrigin(problems, ip, iv)?.text, { max: 64 }),
  );
  if (allowCrossOrigin === true && topOrigins !== undefined && topOrigins.length === 0) {
    problems.add(
      at('topOrigins'),
      'allowCrossOrigin is true, so list the top-level origins that may embed a ceremony (clientDataJSON.topOrigin); without them every cross-origin ceremony fails',
    );
  }
  if (allowCrossOrigin === false && topOrigins !== undefined && topOrigins.length > 0) {
    problems.add(
      at('topOrigins'),
      'is set but allowCrossOrigin is not true: top origins matter only to cross-origin ceremonies',
    );
  }
  const attestation =
    app.attestation === undefined ? emptyPolicy() : readAttestation(ctx, at('attestation'), app.attestation);
  const hints = optional<Hint[]>('hints', [], (p, v) =>
    readArray(problems, p, v, (ip, iv) => readEnum<Hint>(problems, ip, iv, HINTS), { max: HINTS.length }),
  );
  const relatedOrigins = optional<string[]>('relatedOrigins', [], (p, v) =>
    readArray(problems, p, v, (ip, iv) => readRelatedOrigin(problems, ip, iv, domain, origins), { max: 64 }),
  );
  const backupEligibility = optional<BackupEligibilityPolicy>('backupEligibility', 'any', (p, v) =>
    readEnum(problems, p, v, ['any', 'required', 'forbidden']),
  );

  if (
    clientId === undefined ||
    name === undefined ||
    icon === undefined ||
    domain === undefined ||
    variants === undefined ||
    origins === undefined ||
    localOrigins === undefined ||
    timeoutMs === undefined ||
    algorithms === undefined ||
    userVerification === undefined ||
    counterPolicy === undefined ||
    revealUnknownUsers === undefined ||
    allowCrossOrigin === undefined ||
    topOrigins === undefined ||
    attestation === undefined ||
    hints === undefined ||
    relatedOrigins === undefined ||
    backupEligibility === undefined
  ) {
    return undefined;
  }
  // The newer keys only when written: an application without them stays exactly as before (stored
  // applications compare by value).
  return {
    clientId,
    name,
    icon,
    domain,
    origins,
    variants,
    localOrigins,
    timeoutMs,
    algorithms,
    userVerification,
    counterPolicy,
    revealUnknownUsers,
    allowCrossOrigin,
    attestation,
    ...(app.topOrigins === undefined ? {} : { topOrigins }),
    ...(app.hints === undefined ? {} : { hints }),
    ...(app.relatedOrigins === undefined ? {} : { relatedOrigins }),
    ...(app.backupEligibility === undefined ? {} : { backupEligibility }),
  };
}

function readDomain(problems: Problems, path: string, value: unknown): string | undefined {
  const domain = readString(problems, path, value, { max: 253 });
  if (domain === undefined) return undefined;
  const problem = domainProblem(domain);
  if (problem !== undefined) {
    problems.add(path, problem);
    return undefined;
  }
  return domain;
}

function readStandardOrigin(
  problems: Problems,
  path: string,
  value: unknown,
  domain: string | undefined,
): string | undefined {
  const text = readString(problems, path, value, { max: 2048 });
  if (text === undefined) return undefined;
  if (text.startsWith(ANDROID_ORIGIN_PREFIX)) {
    const problem = androidOriginProblem(text);
    if (problem !== undefined) problems.add(path, problem);
    return problem === undefined ? text : undefined;
  }
  const origin = parseOrigin(text);
  if (typeof origin === 'string') {
    problems.add(path, origin);
    return undefined;
  }
  if (domain !== undefined && !hostMatchesDomain(origin.host, domain)) {
    problems.add(
      path,
      `${JSON.stringify(text)} is not on the application's domain ${JSON.stringify(domain)} (or a subdomain of it), so its RP ID could not be used there`,
    );
    return undefined;
  }
  return text;
}

/** WebAuthn L3 §5.11: an https origin whose host is NOT on `domain` (those belong in `origins`). */
function readRelatedOrigin(
  problems: Problems,
  path: string,
  value: unknown,
  domain: string | undefined,
  origins: readonly string[] | undefined,
): string | undefined {
  const read = readParsedOrigin(problems, path, value);
  if (read === undefined) return undefined;
  const { text, origin } = read;
  if (origin.scheme !== 'https') {
    problems.add(path, `${JSON.stringify(text)} must use https: browsers fetch related origins over https only`);
    return undefined;
  }
  if (domain !== undefined && hostMatchesDomain(origin.host, domain)) {
    problems.add(
      path,
      `${JSON.stringify(text)} is on the application's domain ${JSON.stringify(domain)}: list it in origins; relatedOrigins are for other registrable domains`,
    );
    return undefined;
  }
  if (origins?.includes(text)) {
    problems.add(path, `${JSON.stringify(text)} is already in origins`);
    return undefined;
  }
  return text;
}

function readLocalOrigin(problems: Problems, path: string, value: unknown): string | undefined {
  return readParsedOrigin(problems, path, value)?.text;
}

/** A string that parses as an origin, with its parts; a problem recorded and undefined otherwise. */
function readParsedOrigin(problems: Problems, path: string, value: unknown) {
  const text = readString(problems, path, value, { max: 2048 });
  if (text === undefined) return undefined;
  const origin = parseOrigin(text);
  if (typeof origin === 'string') {
    problems.add(path, origin);
    return undefined;
  }
  return { text, origin };
}

function readAlgorithm(problems: Problems, path: string, value: unknown): number | undefined {
  if (typeof value !== 'number' || !KNOWN_ALGORITHMS.includes(value)) {
    problems.add(
      path,
      `must be one of the supported COSE algorithms ${KNOWN_ALGORITHMS.join(', ')}, got ${JSON.stringify(value)}`,
    );
    return undefined;
  }
  return value;
}
