// The admin actions that move an application's passkeys in and out (docs/migration.md), shared by the admin
// API and the CLI: an import from any `--from` format (src/transfer/importer.ts), audited `credential.import`
// with its counts and announced by one `credentials.imported` webhook event; an export to a `--to` format,
// streamed page by page, audited `credential.export` with how many it wrote.
import { deriveUserHandle } from '../ceremonies/user-handle.js';
import { READERS, WRITERS } from '../transfer/formats.js';
import { runImport, type ImportProgress } from '../transfer/importer.js';
import {
  EXPORT_FORMATS,
  IMPORT_FORMATS,
  type ExportFormat,
  type ImportFormat,
  type ImportReport,
} from '../transfer/record.js';
import { storedPages } from '../transfer/stored-pages.js';
import type { CredentialRecord } from '../stores/types.js';
import type { ActionScope } from './action-base.js';
import type { Actor } from './audited.js';
import { AdminError } from './errors.js';

export type { ImportProgress };

export interface ImportRequest {
  /** A `--from` format (record.ts IMPORT_FORMATS); another is INVALID_REQUEST. */
  readonly format: string;
  /** The file's bytes, read as a stream. */
  readonly input: AsyncIterable<Uint8Array>;
  readonly dryRun: boolean;
  /** Told after every batch (a progress line, a progress bar). */
  readonly onProgress?: (progress: ImportProgress) => void;
}

export class TransferActions {
  constructor(private readonly scope: ActionScope) {}

  /**
   * Imports the passkeys of `input` into the application: APPLICATION_NOT_FOUND, INVALID_REQUEST (an unknown
   * format), APPLICATION_LOCAL_ONLY (it stores no keys); otherwise the report, refusals and all.
   */
  importCredentials(actor: Actor, clientId: string, request: ImportRequest): Promise<ImportReport> {
    return this.scope.audited(actor, 'credential.import', { clientId }, async (note) => {
      note({ details: { format: request.format, dryRun: request.dryRun } });
      const reader = READERS[request.format as ImportFormat];
      if (reader === undefined) throw unknownFormat('from', request.format, IMPORT_FORMATS, READERS);
      const app = await this.scope.record(clientId);
      if (!app.config.variants.includes('standard')) throw new AdminError('APPLICATION_LOCAL_ONLY');
      const key = this.scope.deps.userHandleKey;
      if (key === undefined)
        throw new AdminError('INVALID_REQUEST', "an import needs the service's user-handle key", [
          'secrets.userHandleKey: not available here',
        ]);
      let refused = 0;
      const report = await runImport(reader(request.input), {
        application: app.config,
        // A record past the application's limit is refused PASSKEY_LIMIT_REACHED (docs/migration.md).
        maxPasskeysPerUser: app.config.maxPasskeysPerUser,
        credentials: this.scope.deps.credentials,
        derive: (username) => deriveUserHandle(key, clientId, username),
        now: () => this.scope.deps.runtime.now(),
        dryRun: request.dryRun,
        onProgress: (progress) => {
          refused = progress.refused;
          request.onProgress?.(progress);
        },
      });
      const counts = { imported: report.imported, skipped: report.skipped, refused };
      note({ details: { format: request.format, dryRun: request.dryRun, ...counts } });
      if (!request.dryRun) {
        const messages = (await this.scope.messages(app))('credentials.imported', {
          clientId,
          format: request.format,
          ...counts,
        });
        if (messages.length > 0) await this.scope.deps.credentials.outbox.enqueue(messages);
        // Imported passkeys of a model the metadata reports compromised are marked now, not at the next reload.
        if (report.imported > 0) await this.scope.deps.markCompromised?.(clientId);
      }
      return report;
    });
  }

  /**
   * The application's passkeys in `format`, as text chunks (JSON Lines: whole lines, a page of passkeys a
   * chunk). The first chunk is asked for before anything is sent: APPLICATION_NOT_FOUND and INVALID_REQUEST
   * (an unknown format) are thrown there. Audited when the iteration ends, with how many passkeys it wrote
   * and whether it ran to the end.
   */
  exportCredentials(actor: Actor, clientId: string, format: string): AsyncIterable<string> {
    return this.#export(actor, clientId, format);
  }

  async *#export(actor: Actor, clientId: string, format: string): AsyncIterable<string> {
    let exported = 0;
    let complete = false;
    let failure: unknown;
    try {
      const writer = WRITERS[format as ExportFormat];
      if (writer === undefined) throw unknownFormat('to', format, EXPORT_FORMATS, WRITERS);
      const app = await this.scope.record(clientId);
      const counted = async function* (pages: AsyncIterable<readonly CredentialRecord[]>) {
        for await (const page of pages) {
          exported += page.length;
          yield page;
        }
      };
      const credentials = this.scope.deps.credentials;
      yield* writer(counted(storedPages(credentials, clientId)), app.config, credentials);
      complete = true;
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      await this.scope
        .audited(actor, 'credential.export', { clientId }, async (note) => {
          note({ details: { format, exported, complete } });
          if (failure !== undefined) throw failure;
        })
        .catch(() => undefined);
    }
  }
}

function unknownFormat(
  parameter: 'from' | 'to',
  format: string,
  all: readonly string[],
  available: Partial<Record<string, unknown>>,
): AdminError {
  const known = all.filter((name) => available[name] !== undefined);
  const why = all.includes(format) ? 'is not available in this version' : 'is not a format';
  return new AdminError('INVALID_REQUEST', `${JSON.stringify(format)} ${why}`, [
    `${parameter}: one of ${known.join(', ')}`,
  ]);
}
