// Reloading the metadata BLOBs of a running service: after `metadata check --blob` installed a newer BLOB,
// on SIGHUP, on the periodic file check (src/applications/metadata-watch.ts) or on POST /admin/metadata/reload. The
// configured policies are reloaded first (prepareTrust's evaluators), then every evaluator the stored
// directory built (admin-created applications included) and its lookup cache is dropped, so the next
// ceremony uses the new BLOB. A BLOB that does not verify leaves the previous evaluator in use: logged as
// an error naming the application, reported as a failure, never thrown into a running service.

import { metadataRemedy, type PolicyReload, type PreparedTrust } from './config-directory.js';
import type { AttestationPolicy } from '../service-config.js';
import { FidoError } from '../errors/catalogue.js';
import type { Logger } from '../util/log.js';
import { canonicalJson } from '../util/canonical-json.js';
import type { TrustEvaluator } from '../webauthn/attestation/types.js';
import type { ApplicationMetadataReload, MetadataReloadReport } from '../schemas/admin.js';
import type { MetadataInfo } from '../webauthn/trust.js';

/** A reload's report (schemas/admin.ts, which the admin API's answers are checked against). */
export type { ApplicationMetadataReload, MetadataReloadReport };

/** What the reloader needs of the stored application directory (StoredApplicationDirectory). */
export interface ReloadableDirectory {
  reloadMetadataTrust(): readonly {
    readonly policy: AttestationPolicy;
    readonly clientIds: readonly string[];
    readonly before: TrustEvaluator;
    readonly after: TrustEvaluator;
    readonly error?: unknown;
  }[];
}

export interface MetadataReloaderOptions {
  /** The configured applications' evaluators (absent: only the directory's are rebuilt). */
  readonly trust?: Pick<PreparedTrust, 'reloadMetadata'>;
  readonly directory: ReloadableDirectory;
  /** Epoch ms (runtime.now). */
  readonly now: () => number;
  readonly log: Logger;
}

export type MetadataReloader = () => Promise<MetadataReloadReport>;

/** The reload, serialised: a reload asked for while one runs starts after it (each sees the file it reads). */
export function createMetadataReloader(options: MetadataReloaderOptions): MetadataReloader {
  let queue: Promise<unknown> = Promise.resolve();
  return () => {
    const run = queue.then(() => reloadOnce(options));
    queue = run.catch(() => undefined);
    return run;
  };
}

async function reloadOnce({ trust, directory, now, log }: MetadataReloaderOptions): Promise<MetadataReloadReport> {
  const at = new Date(now());
  const configured = trust?.reloadMetadata(at) ?? [];
  const rebuilt = directory.reloadMetadataTrust();
  const configuredKeys = new Set(configured.map((result) => canonicalJson(result.policy)));
  const results: { readonly result: PolicyReload; readonly source: ApplicationMetadataReload['source'] }[] = [
    ...configured.map((result) => ({ result, source: 'config' as const })),
    // Evaluators of configured policies were taken from prepareTrust above; the others were built here.
    ...rebuilt
      .filter((result) => !configuredKeys.has(canonicalJson(result.policy)))
      .map((result) => ({
        result: {
          policy: result.policy,
          clientIds: result.clientIds,
          before: metadataInfoOf(result.before),
          after: metadataInfoOf(result.after),
          ...(result.error === undefined ? {} : { error: result.error }),
        },
        source: 'stored' as const,
      })),
  ];
  const applications: ApplicationMetadataReload[] = [];
  for (const { result, source } of results) {
    for (const application of perApplication(result, source)) {
      logApplication(log, application, result.error);
      applications.push(application);
    }
  }
  const report: MetadataReloadReport = {
    ok: applications.every((a) => a.ok),
    changed: applications.some((a) => a.changed),
    at: at.toISOString(),
    applications,
  };
  log.info(
    { event: 'metadata_reload', ok: report.ok, changed: report.changed, applications: applications.length },
    report.changed ? 'metadata reloaded: a newer BLOB is in use' : 'metadata reloaded: no BLOB changed',
  );
  return report;
}

function perApplication(
  result: PolicyReload,
  source: ApplicationMetadataReload['source'],
): ApplicationMetadataReload[] {
  const { before, after, error } = result;
  const file = result.policy.metadata ?? '';
  return result.clientIds.map((clientId) => ({
    clientId,
    source,
    file,
    ok: error === undefined,
    serialBefore: before?.serial ?? null,
    serial: after?.serial ?? null,
    nextUpdate: after?.nextUpdate ?? null,
    entries: after?.entries ?? null,
    stale: after?.staleAtLoad ?? false,
    revocationChecked: after?.revocationChecked ?? false,
    changed: (before?.serial ?? null) !== (after?.serial ?? null),
    ...(error === undefined ? {} : { error: describe(error) }),
  }));
}

/** One line per application; `cause` is the error of a failed reload (it says what the operator does). */
function logApplication(log: Logger, application: ApplicationMetadataReload, cause: unknown): void {
  const { clientId, file, serial, serialBefore, nextUpdate, entries, changed, revocationChecked } = application;
  if (!application.ok) {
    log.error(
      { event: 'metadata_reload_failed', clientId, metadata: file, error: application.error, serial },
      `the metadata BLOB could not be reloaded; the previous BLOB stays in use: ${metadataRemedy(cause)}`,
    );
    return;
  }
  log.info(
    {
      event: 'metadata_reloaded',
      clientId,
      metadata: file,
      serial,
      previousSerial: serialBefore,
      changed,
      nextUpdate,
      entries,
      revocationChecked,
    },
    'metadata BLOB loaded',
  );
  if (application.stale) {
    log.warn(
      { clientId, metadata: file, serial, nextUpdate },
      'the metadata BLOB is past its nextUpdate: install a newer one (passkey-server metadata check --blob …, docs/attestation.md)',
    );
  }
}

/** The BLOB an evaluator was built from, when it was built by loadTrustEvaluator. */
function metadataInfoOf(evaluator: TrustEvaluator): MetadataInfo | null {
  return (evaluator as { readonly metadataInfo?: MetadataInfo | null }).metadataInfo ?? null;
}

function describe(error: unknown): string {
  if (error instanceof FidoError) return `${error.code}${error.detail ? `: ${error.detail}` : ''}`;
  return error instanceof Error ? error.message : String(error);
}
