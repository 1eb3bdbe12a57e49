// Everything `serve` reads from outside at start besides the secrets: the config file with the
// environment's overrides (load.ts), the operations settings, the periodic metadata check and the log
// level. The composition step (src/compose/service.ts) receives these as data and reads no variable itself.
import type { OpsOptions, ServiceConfig } from '../config.js';
import { LOG_LEVELS, type LogLevel } from '../util/log.js';
import { ConfigError } from './errors.js';
import { loadConfig, type LoadConfigOptions } from './load.js';
import { applyOpsEnv, defaultOpsOptions, metadataCheckIntervalMs } from './ops-options.js';

export const LOG_LEVEL_ENV = 'PASSKEY_LOG_LEVEL';

export interface ServeSettings {
  readonly config: ServiceConfig;
  /** Where the configuration came from, for messages: the file, or "built-in defaults". */
  readonly source: string;
  readonly ops: OpsOptions;
  /** How often the metadata files are checked for a change (0: never). */
  readonly metadataCheckMs: number;
  readonly logLevel: LogLevel;
}

export function loadServeSettings(options: LoadConfigOptions): ServeSettings {
  const source = options.file ?? 'built-in defaults';
  const config = loadConfig(options);
  const problems: string[] = [];
  // The loader always sets `ops`; a configuration without it is one built by hand: the defaults, with the environment.
  const ops = config.ops ?? applyOpsEnv(defaultOpsOptions(config.dataDir), options.env, options.cwd, problems);
  const metadataCheckMs = metadataCheckIntervalMs(options.env, problems);
  if (problems.length > 0) throw new ConfigError(problems, source);
  return { config, source, ops, metadataCheckMs, logLevel: logLevelOf(options.env) };
}

/** PASSKEY_LOG_LEVEL (debug, info, warn, error, silent; anything else: info). */
export function logLevelOf(env: Readonly<Record<string, string | undefined>>): LogLevel {
  const wanted = env[LOG_LEVEL_ENV]?.trim().toLowerCase();
  return wanted !== undefined && (LOG_LEVELS as string[]).includes(wanted) ? (wanted as LogLevel) : 'info';
}
