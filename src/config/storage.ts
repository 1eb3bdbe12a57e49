// The storage keys of the config file: `database` (SQLite file or PostgreSQL URL), `challenges` (memory,
// the database or a Redis URL) and `sqliteWriter`, each already a string of the right length (the schema's
// check). URLs are checked, and shown redacted in a problem.
import type { ChallengeStoreConfig, DatabaseConfig, SqliteWriterSetting } from '../config.js';
import type { Problems } from './checks.js';

export function readSqliteWriter(problems: Problems, text: string): SqliteWriterSetting | undefined {
  if (text === 'auto' || text === 'thread' || text === 'inline') return text;
  return problems.addIfAny('sqliteWriter', `must be "auto", "thread" or "inline", got ${JSON.stringify(text)}`);
}

export function readDatabase(
  problems: Problems,
  text: string,
  resolvePath: (keyPath: string, value: string) => string,
): DatabaseConfig | undefined {
  if (text === 'sqlite:')
    return problems.addIfAny('database', '"sqlite:" needs a file path, e.g. "sqlite:./data/fido2.db"');
  if (text.startsWith('sqlite:'))
    return { kind: 'sqlite', path: resolvePath('database', text.slice('sqlite:'.length)) };
  if (text.startsWith('postgres://') || text.startsWith('postgresql://')) {
    const problem = urlProblem(text, 'postgres', 'postgres://user@host:5432/database');
    return problem === undefined ? { kind: 'postgres', url: text } : problems.addIfAny('database', problem);
  }
  return problems.addIfAny(
    'database',
    `must be "sqlite:<path>" or a "postgres://" URL, got ${JSON.stringify(redactUrl(text))}`,
  );
}

export function readChallenges(problems: Problems, text: string): ChallengeStoreConfig | undefined {
  if (text === 'memory' || text === 'database') return { kind: text };
  if (text.startsWith('redis://') || text.startsWith('rediss://')) {
    const problem = urlProblem(text, 'redis', 'redis://host:6379');
    return problem === undefined ? { kind: 'redis', url: text } : problems.addIfAny('challenges', problem);
  }
  return problems.addIfAny(
    'challenges',
    `must be "memory", "database" or a "redis://" URL, got ${JSON.stringify(redactUrl(text))}`,
  );
}

/** A URL that parses and names a host (PostgreSQL's may name it in `?host=`), or the problem, redacted. */
function urlProblem(value: string, scheme: 'postgres' | 'redis', example: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${JSON.stringify(redactUrl(value))} is not a URL (${example})`;
  }
  const host = url.hostname !== '' || (scheme === 'postgres' && url.searchParams.has('host'));
  return host ? undefined : `the ${scheme}:// URL names no host`;
}

/** A URL with its password replaced, for messages and logs (a database URL may carry credentials). */
export function redactUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return value.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
  }
}
