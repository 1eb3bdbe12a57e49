// The periodic metadata check: every instance stats its metadata files now and then (a cheap fs.stat, on an
// unref'd timer that never keeps the process alive) and reloads when one changed, so that every instance
// sharing a file picks up the BLOB `metadata check --blob` installed without anyone sending a signal. The
// files are each BLOB and the CRL files of its signing chain (`attestation.metadataCrls`): CRLs expire
// within days, so a refreshed CRL alone must reach the running service too. A file counts as changed when
// its modification time, size or inode differ (`metadata check` renames a new file into place, which changes
// the inode even within one mtime tick).

import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { AttestationPolicy } from '../service-config.js';
import type { Logger } from '../util/log.js';

/** The files a policy's metadata is read from: its BLOB and the CRLs of the BLOB's chain (none without a BLOB). */
export function metadataFilesOf(policy: AttestationPolicy): string[] {
  return policy.metadata === null ? [] : [policy.metadata, ...(policy.metadataCrls ?? [])];
}

export interface FileStamp {
  readonly mtimeMs: number;
  readonly size: number;
  readonly ino: number;
}

/** What a file looks like now; null when it cannot be stat'ed (missing, no permission). */
export type Stamps = ReadonlyMap<string, FileStamp | null>;

export interface MetadataWatchOptions {
  /** The files to watch, asked at every check (applications created later add theirs). */
  readonly files: () => Iterable<string>;
  /** Milliseconds between checks; 0 disables the timer (`check()` still works). */
  readonly intervalMs: number;
  /**
   * The files as they were before the running BLOBs were read (stampFilesSync before prepareTrust), so a
   * change between that read and the first check is not missed. Files not in it are learnt at first sight.
   */
  readonly baseline?: Stamps;
  /** Called with the changed files; the watcher logs what it throws or rejects with and carries on. */
  readonly onChange: (files: readonly string[]) => Promise<unknown>;
  readonly log: Logger;
  /** Replaces fs.stat (tests). */
  readonly stat?: (file: string) => Promise<FileStamp>;
}

export interface MetadataWatch {
  /** One check now: stats every file, calls onChange when some changed; resolves to whether it did. */
  check(): Promise<boolean>;
  /** Stops the timer (a check in flight finishes; none follows). */
  stop(): void;
}

export function stampFilesSync(files: Iterable<string>): Map<string, FileStamp | null> {
  const stamps = new Map<string, FileStamp | null>();
  for (const file of files) {
    try {
      stamps.set(file, stampOf(statSync(file)));
    } catch {
      stamps.set(file, null);
    }
  }
  return stamps;
}

export function watchMetadataFiles(options: MetadataWatchOptions): MetadataWatch {
  const known = new Map<string, FileStamp | null>(options.baseline ?? []);
  const statFile = options.stat ?? (async (file: string) => stampOf(await stat(file)));
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<boolean> | undefined;

  async function checkOnce(): Promise<boolean> {
    const changed: string[] = [];
    for (const file of new Set(options.files())) {
      const now = await statFile(file).catch(() => null);
      const before = known.get(file);
      known.set(file, now);
      if (before === undefined) continue; // first sight: the file just read is this one
      if (now === null) {
        // A file that vanished is not reloaded (the reload would only fail): the running BLOB stays. Said once.
        if (before !== null)
          options.log.warn(
            { metadata: file },
            'a metadata file (BLOB or CRL) cannot be read; the loaded BLOB stays in use',
          );
        continue;
      }
      if (before === null || !sameStamp(before, now)) changed.push(file);
    }
    if (changed.length === 0) return false;
    options.log.info(
      { event: 'metadata_file_changed', files: changed },
      'a metadata file (BLOB or CRL) changed: reloading',
    );
    try {
      await options.onChange(changed);
    } catch (error) {
      options.log.error(
        { error: error instanceof Error ? error.message : String(error) },
        'the metadata reload after a file change failed',
      );
    }
    return true;
  }

  // Checks never overlap: one asked for while another runs waits for it and then runs.
  const check = (): Promise<boolean> => {
    const next = (running ?? Promise.resolve(false)).then(checkOnce, checkOnce);
    running = next;
    return next;
  };

  const arm = () => {
    if (stopped || options.intervalMs <= 0) return;
    timer = setTimeout(() => {
      void check()
        .catch(() => false)
        .finally(arm);
    }, options.intervalMs);
    timer.unref();
  };
  arm();

  return {
    check,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

function stampOf(stats: { mtimeMs: number; size: number; ino: number }): FileStamp {
  return { mtimeMs: stats.mtimeMs, size: stats.size, ino: stats.ino };
}

function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.mtimeMs === b.mtimeMs && a.size === b.size && a.ino === b.ino;
}
