// Moving passkeys in and out at scale (issue 34, docs/migration.md): a file of the service's own format
// imported by the admin CLI (`admin credential import … --from passkey-server`), then exported
// (`admin credential export … --output`), the CLI pinned to one core, on SQLite and on PostgreSQL. Each size
// runs with a tenth of it beside it: the same peak memory for both is what "constant memory" means.
//
//   npm run pretest && node .build/bench/transfer.js [--records 1000000] [--backends sqlite,postgres]
//
// The records are real: ES256 keys (a pool of 64 key pairs, each key a valid point, checked by the import as
// any other), unique credential ids and user handles, two passkeys a user. The file, the SQLite database and
// the PostgreSQL schema are removed at the end.
import { once } from 'node:events';
import { createWriteStream, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { POSTGRES_URL, sql } from '../test/scale/support/backends.js';
import { CLI, cleanEnv } from '../test/support/cli-process.js';
import { heldPasskey } from '../test/support/held-passkeys.js';
import { memory, SERVER_CORE, startNode } from './lib/proc.js';

const DOMAIN = 'idp.example.test';
const CLIENT_ID = 'bench-transfer';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '1000000' },
    backends: { type: 'string', default: 'sqlite,postgres' },
  },
});
const records = Number(values.records);
const backends = values.backends.split(',');

/** Writes `count` records of the passkey-server format to `file`, respecting the stream's backpressure. */
async function writeRecords(file: string, count: number): Promise<void> {
  const keys = Array.from({ length: 64 }, () => heldPasskey({ alg: -7, rpId: DOMAIN, origin: `https://${DOMAIN}` }));
  const out = createWriteStream(file);
  for (let i = 0; i < count; i++) {
    const user = Math.floor(i / 2);
    const line = {
      username: `user${user}`,
      userHandle: Buffer.from(`handle-${user}`).toString('base64url'),
      displayName: `User ${user}`,
      credentialId: Buffer.from(`credential-${i}-of-the-transfer-bench`).toString('base64url'),
      publicKey: keys[i % keys.length]!.cose.toString('base64url'),
      signCount: i % 1000,
      transports: ['internal', 'hybrid'],
      backupEligible: true,
      backupState: true,
      aaguid: 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4',
      attestation: { format: 'packed', type: 'basic', trusted: true },
      name: null,
      createdAt: '2025-01-02T03:04:05.000Z',
      lastUsedAt: null,
      status: null,
    };
    if (!out.write(`${JSON.stringify(line)}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

interface Run {
  readonly seconds: number;
  readonly peakMiB: number;
  readonly stdout: string;
}

/** Runs the CLI pinned to the server core, sampling its peak resident memory while it runs. */
async function runCli(args: readonly string[], cwd: string): Promise<Run> {
  const started = process.hrtime.bigint();
  const child = startNode([CLI, ...args], cleanEnv(), cwd);
  let stdout = '';
  child.process.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  let peakMiB = 0;
  const sampler = setInterval(() => {
    try {
      const { peakMiB: now } = memory(child.pid);
      // An exiting process's status has no VmHWM line any more (NaN): keep the last reading.
      if (Number.isFinite(now)) peakMiB = Math.max(peakMiB, now);
    } catch {
      // The process has just exited.
    }
  }, 50);
  const [code] = (await once(child.process, 'exit')) as [number | null];
  clearInterval(sampler);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (code !== 0) throw new Error(`passkey-server ${args.join(' ')} exited ${code}:\n${child.output()}`);
  return { seconds, peakMiB, stdout };
}

interface Row {
  readonly backend: string;
  readonly records: number;
  readonly importPerSecond: number;
  readonly importPeakMiB: number;
  readonly exportPerSecond: number;
  readonly exportPeakMiB: number;
}

async function measure(backend: string, count: number, dir: string, file: string): Promise<Row> {
  const schema = `bench_transfer_${process.pid}_${count}`;
  const database =
    backend === 'sqlite' ? `sqlite:${join(dir, `transfer-${count}.db`)}` : `${POSTGRES_URL}?schema=${schema}`;
  const config = join(dir, `config-${backend}-${count}.json`);
  writeFileSync(
    config,
    JSON.stringify({
      database,
      dataDir: join(dir, 'data'),
      local: { enabled: false },
      demo: { enabled: false },
      applications: [{ clientId: CLIENT_ID, name: 'Transfer bench', domain: DOMAIN, origins: [`https://${DOMAIN}`] }],
    }),
  );
  try {
    if (backend === 'postgres') {
      // Never generated on their own for a shared database (docs/configuration.md): made once, as an operator would.
      const secrets = join(dir, 'data', 'secrets.json');
      if (!existsSync(secrets)) await runCli(['secrets', 'init', '--file', secrets], dir);
      await runCli(['migrate', '--config', config], dir);
    }
    const imported = await runCli(
      ['admin', 'credential', 'import', CLIENT_ID, '--from', 'passkey-server', file, '--config', config],
      dir,
    );
    const report = JSON.parse(imported.stdout) as { imported: number };
    if (report.imported !== count) throw new Error(`imported ${report.imported} of ${count}: ${imported.stdout}`);
    const output = join(dir, `export-${backend}-${count}.jsonl`);
    const exported = await runCli(
      ['admin', 'credential', 'export', CLIENT_ID, '--output', output, '--config', config],
      dir,
    );
    const exportedBytes = statSync(output).size;
    rmSync(output);
    if (exportedBytes < count * 100) throw new Error(`the export of ${count} records is only ${exportedBytes} bytes`);
    return {
      backend,
      records: count,
      importPerSecond: count / imported.seconds,
      importPeakMiB: imported.peakMiB,
      exportPerSecond: count / exported.seconds,
      exportPeakMiB: exported.peakMiB,
    };
  } finally {
    if (backend === 'postgres') await sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'passkey-bench-transfer-'));
try {
  console.log(
    `${records} records; ${cpus()[0]?.model ?? 'unknown CPU'} × ${cpus().length}; the CLI on core ${SERVER_CORE}; ` +
      `load ${loadavg()[0]!.toFixed(1)}; Node.js ${process.version}`,
  );
  const sizes = [Math.max(1, Math.floor(records / 10)), records];
  const files = new Map<number, string>();
  for (const size of sizes) {
    const file = join(dir, `passkeys-${size}.jsonl`);
    await writeRecords(file, size);
    files.set(size, file);
  }
  // Each row as soon as it is measured: a long PostgreSQL run stopped early keeps the SQLite figures.
  console.log(
    '\n| backend | records | import records/s | import peak RSS MiB | export records/s | export peak RSS MiB |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const backend of backends) {
    for (const size of sizes) {
      const row = await measure(backend, size, dir, files.get(size)!);
      console.log(
        `| ${row.backend} | ${row.records} | ${Math.round(row.importPerSecond)} | ${row.importPeakMiB.toFixed(0)} | ` +
          `${Math.round(row.exportPerSecond)} | ${row.exportPeakMiB.toFixed(0)} |`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
