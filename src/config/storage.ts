// The storage keys of the config file: `database` (SQLite file or PostgreSQL URL), `challenges` (memory,
// the database or a Redis URL) and `sqliteWriter`, each already a string of the right length (the schema's
// check). URLs are checked, and shown redacted in a problem.
import type { ChallengeStoreConfig, DatabaseConfig, SqliteWriterSetting } from '../config.js';
import type { Problems } from './checks.js';
import { postgresUrlProblem, redactUrl, redisUrlProblem } from './web.js';

export function readSqliteWriter(problems: Problems, text: string): SqliteWriterSetting | undefined {
  if (text === 'auto' || text === 'thread' || text === 'inline') return text;
  problems.add('sqliteWriter', `must be "auto", "thread" or "inline", got ${JSON.stringify(text)}`);
  return undefined;
}

export function readDatabase(
  problems: Problems,
  text: string,
  resolvePath: (keyPath: string, value: string) => string,
): DatabaseConfig | undefined {
  if (text.startsWith('sqlite:')) {
    const path = text.slice('sqlite:'.length);
    if (path === '') {
      problems.add('database', '"sqlite:" needs a file path, e.g. "sqlite:./data/fido2.db"');
      return undefined;
    }
    return { kind: 'sqlite', path: resolvePath('database', path) };
  }
  if (text.startsWith('postgres://') || text.startsWith('postgresql://')) {
    const problem = postgresUrlProblem(text);
    if (problem !== undefined) {
      problems.add('database', problem);
      return undefined;
    }
    return { kind: 'postgres', url: text };
  }
  problems.add('database', `must be "sqlite:<path>" or a "postgres://" URL, got ${JSON.stringify(redactUrl(text))}`);
  return undefined;
}

export function readChallenges(problems: Problems, text: string): ChallengeStoreConfig | undefined {
  if (text === 'memory' || text === 'database') return { kind: text };
  if (text.startsWith('redis://') || text.startsWith('rediss://')) {
    const problem = redisUrlProblem(text);
    if (problem !== undefined) {
      problems.add('challenges', problem);
      return undefined;
    }
    return { kind: 'redis', url: text };
  }
  problems.add(
    'challenges',
    `must be "memory", "database" or a "redis://" URL, got ${JSON.stringify(redactUrl(text))}`,
  );
  return undefined;
}
