// Diagnostic compositions of our service for the bench: the same config, `buildApp`, ceremonies and SQLite
// file with the same durable settings as `serve`, but WITHOUT the operations hooks (metrics, audit, rate
// limits), so that the bench can show side by side what those hooks cost and what the SQLite writer
// (src/stores/sqlite-writer.ts) buys in each of its modes:
//
//   node ours-composed.js --config <file> [--writer thread|inline|none]
//     thread (default): the service's own stores, group commit on the writer thread
//     inline: group commit on the event loop
//     none: one autocommit per write on the event loop (what the service did before the writer)

import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { createApplicationDirectory } from '../../src/applications/config-directory.js';
import { loadConfig } from '../../src/config/load.js';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/util/log.js';
import { loadSecrets } from '../../src/config/secrets.js';
import { MemoryChallengeStore } from '../../src/stores/memory.js';
import { openSqliteCredentialStore } from '../../src/stores/sqlite.js';
import { openSqliteWriter } from '../../src/stores/sqlite-writer.js';
import { systemRuntime } from '../../src/util/runtime.js';

const { values } = parseArgs({
  options: { config: { type: 'string' }, writer: { type: 'string', default: 'thread' } },
});
const mode = values.writer as 'thread' | 'inline' | 'none';
if (!['thread', 'inline', 'none'].includes(mode)) throw new Error('--writer thread|inline|none');
const config = loadConfig({ file: values.config, env: process.env, cwd: process.cwd() });
if (config.database.kind !== 'sqlite') throw new Error('the bench compositions are for SQLite');
const sqlitePath = config.database.path;
const runtime = systemRuntime;
const log = createLogger({
  level: 'warn',
  sink: process.stderr,
  clock: runtime.now,
  base: { service: 'passkey-server' },
});
const secrets = loadSecrets({ config, env: process.env, randomBytes: runtime.randomBytes, log });
async function openBenchStores() {
  const writer = mode === 'none' ? undefined : await openSqliteWriter(sqlitePath, { mode });
  const credentials = await openSqliteCredentialStore(sqlitePath, writer ? { writer } : {});
  const challenges = new MemoryChallengeStore({ clock: runtime.now });
  return {
    credentials,
    challenges,
    close: async () => {
      await Promise.all([credentials.close(), challenges.close()]);
      await writer?.close();
    },
  };
}
const stores = await openBenchStores();
const app = buildApp({
  config,
  applications: createApplicationDirectory(config.applications),
  credentials: stores.credentials,
  challenges: stores.challenges,
  secrets,
  runtime,
  log,
});
const server = createServer(app.handler);
server.keepAliveTimeout = 5_000;
server.listen(config.listen.port, config.listen.host, () => process.stdout.write(`listening ${config.listen.port}\n`));
process.on('SIGTERM', () =>
  server.close(() => {
    void stores.close().then(() => process.exit(0));
  }),
);
