// Everything `serve` reads from outside at start besides the secrets: the config file with the
// environment's overrides (load.ts), the operations settings, the periodic metadata check, the log
// level and the trace export (tracing.ts). The composition step (src/compose/service.ts) receives these as
// data and reads no variable itself.
import type { OpsOptions, ServiceConfig, TracingSettings } from '../service-config.js';
import type { LogLevel } from '../util/log.js';
import { logLevelOf, metadataCheckIntervalMs } from './env.js';
import { ConfigError } from './errors.js';
import { type LoadConfigOptions, loadConfig } from './load.js';
import { defaultOpsOptions } from './ops.js';
import { tracingSettings } from './tracing.js';
import { readWebhookSecrets } from './webhook-urls.js';

export interface ServeSettings {
  readonly config: ServiceConfig;
  /** Where the configuration came from, for messages: the file, or "built-in defaults". */
  readonly source: string;
  readonly ops: OpsOptions;
  /** How often the metadata files are checked for a change (0: never). */
  readonly metadataCheckMs: number;
  readonly logLevel: LogLevel;
  /** The OpenTelemetry trace export (OTEL_* variables, tracing.ts), or null: no traces. */
  readonly tracing: TracingSettings | null;
  /** The webhook secrets written `env:<NAME>` in the config file: NAME → `whsec_…`, read once here. */
  readonly webhookSecrets: ReadonlyMap<string, string>;
}

export function loadServeSettings(options: LoadConfigOptions): ServeSettings {
  const source = options.file ?? 'built-in defaults';
  const config = loadConfig(options);
  const problems: string[] = [];
  const metadataCheckMs = metadataCheckIntervalMs(options.env, problems);
  const tracing = tracingSettings(options.env, problems);
  const webhookSecrets = readWebhookSecrets(config, options.env, problems);
  if (problems.length > 0) throw new ConfigError(problems, source);
  const ops = config.ops ?? defaultOpsOptions(config.dataDir);
  return { config, source, ops, metadataCheckMs, logLevel: logLevelOf(options.env), tracing, webhookSecrets };
}
