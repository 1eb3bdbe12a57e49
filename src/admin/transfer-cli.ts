// `passkey-server admin credential import|export` (docs/migration.md): the file (or standard input) read as a
// stream into the import, its report as JSON on standard output, exit 0 when nothing was refused and 1
// otherwise; the export written as a stream to standard output or `--output`. A progress line goes to
// standard error only when it is a terminal.
import { createReadStream, createWriteStream, openSync } from 'node:fs';
import { once } from 'node:events';
import { resolve } from 'node:path';
import type { Actor, AdminActions, ImportProgress } from './actions.js';

/** What the commands write to: a stream whose `write` may ask to wait (`false`, then `drain`). */
export interface TransferOutput {
  write(text: string): unknown;
  once?(event: 'drain', listener: () => void): unknown;
  readonly isTTY?: boolean;
}

export interface TransferIo {
  readonly stdout: TransferOutput;
  readonly stderr: TransferOutput;
  /** The `-` file (default: the process's standard input). */
  readonly stdin?: AsyncIterable<Uint8Array>;
  /** A relative file resolves against this folder (default: the process's). */
  readonly cwd?: string;
}

export interface TransferFlags {
  readonly from?: string | undefined;
  readonly to?: string | undefined;
  readonly output?: string | undefined;
  readonly 'dry-run'?: boolean | undefined;
}

export async function importCommand(
  rest: readonly string[],
  flags: TransferFlags,
  actions: AdminActions,
  actor: Actor,
  io: TransferIo,
  usage: (message: string) => Error,
): Promise<number> {
  if (rest.length !== 2) throw usage('expected a Client ID and a file (or - for standard input)');
  if (flags.from === undefined) throw usage('--from <format> is required');
  const [clientId, file] = rest as [string, string];
  const input: AsyncIterable<Uint8Array> =
    file === '-'
      ? (io.stdin ?? process.stdin)
      : createReadStream('', { fd: openSync(resolve(io.cwd ?? process.cwd(), file), 'r') });
  const progress = io.stderr.isTTY === true;
  const report = await actions.importCredentials(actor, clientId, {
    format: flags.from,
    input,
    dryRun: flags['dry-run'] === true,
    ...(progress ? { onProgress: (p: ImportProgress) => io.stderr.write(`\r${progressLine(p)}`) } : {}),
  });
  if (progress) io.stderr.write('\n');
  await write(io.stdout, `${JSON.stringify(report, null, 2)}\n`);
  return report.refused.length === 0 ? 0 : 1;
}

export async function exportCommand(
  rest: readonly string[],
  flags: TransferFlags,
  actions: AdminActions,
  actor: Actor,
  io: TransferIo,
  usage: (message: string) => Error,
): Promise<number> {
  if (rest.length !== 1) throw usage('expected a Client ID');
  const chunks = actions.exportCredentials(actor, rest[0]!, flags.to ?? 'passkey-server');
  if (flags.output === undefined) {
    for await (const chunk of chunks) await write(io.stdout, chunk);
    return 0;
  }
  // Opened first, so that a path that cannot be written fails before anything is read.
  const file = createWriteStream('', { fd: openSync(resolve(io.cwd ?? process.cwd(), flags.output), 'w', 0o600) });
  try {
    for await (const chunk of chunks) await write(file, chunk);
  } finally {
    file.end();
    await once(file, 'close');
  }
  return 0;
}

function progressLine(p: ImportProgress): string {
  return `read ${p.read}: imported ${p.imported}, skipped ${p.skipped}, refused ${p.refused}`;
}

/** Writes `text`, waiting for `drain` when the stream asks to (so an export holds one chunk at a time). */
async function write(stream: TransferOutput, text: string): Promise<void> {
  if (stream.write(text) === false && typeof stream.once === 'function')
    await new Promise<void>((done) => stream.once!('drain', done));
}
