// A small JSON-lines logger: one object per line {time, level, msg, ...fields}, written to a stream
// (stderr by default, so stdout stays for what a command prints). Fields whose name suggests a secret are
// replaced, and bytes are never written, so a careless call cannot leak a key into the log.

export interface Logger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
export const LOG_LEVELS = Object.keys(RANK) as LogLevel[];

/** Field names that never reach the log with their value. */
const SECRET_NAME = /(secret|password|passwd|token|private|^key$|Key$|keys$|_key$|authorization|cookie)/i;
/** Field names that look secret but are safe (they hold ids, not keys). */
const SAFE_NAME = /(keyIds?|KeyIds?|key_?ids?)$/i;
const MAX_DEPTH = 5;

export interface LogSink {
  write(line: string): unknown;
}

export interface CreateLoggerOptions {
  readonly level?: LogLevel;
  readonly sink?: LogSink;
  readonly clock?: () => number;
  /** Fields added to every line (e.g. {service: 'passkey-server'}). */
  readonly base?: Record<string, unknown>;
}

export interface LevelledLogger extends Logger {
  debug(fields: Record<string, unknown>, message: string): void;
  readonly level: LogLevel;
}

export function createLogger(options: CreateLoggerOptions = {}): LevelledLogger {
  const level = options.level ?? 'info';
  const sink = options.sink ?? process.stderr;
  const clock = options.clock ?? Date.now;
  const base = options.base ?? {};
  const emit = (at: Exclude<LogLevel, 'silent'>, fields: Record<string, unknown>, message: string): void => {
    if (RANK[at] < RANK[level]) return;
    const entry = {
      time: new Date(clock()).toISOString(),
      level: at,
      msg: message,
      ...scrub(base, 0),
      ...scrub(fields, 0),
    };
    try {
      sink.write(`${JSON.stringify(entry)}\n`);
    } catch {
      // Logging must never take a request down (a closed pipe, an odd value): drop the line.
    }
  };
  return {
    level,
    debug: (fields, message) => emit('debug', fields, message),
    info: (fields, message) => emit('info', fields, message),
    warn: (fields, message) => emit('warn', fields, message),
    error: (fields, message) => emit('error', fields, message),
  };
}

/** A logger that drops everything (tests, quiet commands). */
export const silentLogger: LevelledLogger = createLogger({ level: 'silent' });

function scrub(fields: Record<string, unknown>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    out[name] = SECRET_NAME.test(name) && !SAFE_NAME.test(name) ? '[redacted]' : scrubValue(value, depth + 1);
  }
  return out;
}

function scrubValue(value: unknown, depth: number): unknown {
  if (value instanceof Error) {
    return { name: value.name, message: value.message, ...(value.stack ? { stack: value.stack } : {}) };
  }
  if (value instanceof Uint8Array || value instanceof ArrayBuffer) return '[bytes]';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'function' || typeof value === 'symbol') return undefined;
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) return '[nested]';
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, depth + 1));
  return scrub(value as Record<string, unknown>, depth);
}
