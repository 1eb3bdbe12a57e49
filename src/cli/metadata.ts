// `passkey-server metadata check [--config file] [--blob new.jwt] [--app clientId] [--json]`
// Verifies each application's FIDO MDS3 BLOB (or installs a newer one given with --blob, after verifying
// it), then lists the stored credentials whose authenticator model the BLOB now reports compromised or
// revoked. Exit codes: 0 nothing found, 3 such credentials exist, 1 failure, 2 usage.
// With `attestation.metadataCrls`, a BLOB whose signing chain is revoked or not covered by current CRLs
// fails (exit 1) and is never installed. The report names the chain's CRL distribution points, so the
// operator knows which CRLs to fetch next to the BLOB.
// Running instances pick an installed BLOB up without a restart: within their periodic check
// (PASSKEY_METADATA_CHECK_INTERVAL_MS, default 60 s; it watches the CRL files too), or at once on SIGHUP or
// POST /admin/metadata/reload (src/applications/metadata-watch.ts, src/applications/trust-reload.ts).

import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ApplicationConfig, ServiceConfig } from '../service-config.js';
import { loadConfig } from '../config/load.js';
import { openConfiguredCredentials } from '../compose/commands.js';
import { FidoError } from '../errors/catalogue.js';
import type { CredentialRecord, CredentialStore } from '../stores/types.js';
import { systemRuntime, type Runtime } from '../util/runtime.js';
import type { Crl } from '../webauthn/crl.js';
import {
  chainDistributionPoints,
  indexMetadata,
  isStale,
  refusingStatus,
  ZERO_AAGUID,
  type MetadataBlob,
  type MetadataIndex,
} from '../webauthn/metadata/index.js';
import { readCrlFiles, readMetadataFile } from '../webauthn/metadata/load.js';
import { metadataRootsFor } from '../webauthn/trust.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, processIo, type CliIo } from './io.js';

export const EXIT_COMPROMISED = 3;
const PAGE = 500;

export interface CompromisedCredential {
  readonly clientId: string;
  readonly credentialId: string;
  readonly username: string;
  readonly aaguid: string;
  readonly authenticator: string | null;
  readonly status: string;
  /** ISO date of the status report, or null. */
  readonly effectiveDate: string | null;
}

export interface RevocationReport {
  /** The signing chain was checked against the configured CRLs (false: none configured, not checked). */
  readonly checked: boolean;
  /** The configured CRL files (attestation.metadataCrls). */
  readonly crlFiles: readonly string[];
  /** The CRL distribution points named by the chain's certificates: the CRLs to fetch next to the BLOB. */
  readonly distributionPoints: readonly string[];
}

export interface ApplicationReport {
  readonly clientId: string;
  readonly blob: {
    readonly file: string;
    readonly serial: number;
    readonly nextUpdate: string;
    readonly stale: boolean;
    readonly installed: boolean;
  };
  readonly revocation: RevocationReport;
  readonly compromised: readonly CompromisedCredential[];
}

export async function runMetadataCheck(
  argv: readonly string[],
  io: CliIo = processIo(),
  runtime: Runtime = systemRuntime,
): Promise<number> {
  let values: { config?: string; blob?: string; app?: string; json?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        config: { type: 'string', short: 'c' },
        blob: { type: 'string' },
        app: { type: 'string' },
        json: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    io.stderr.write(
      `passkey-server: ${(error as Error).message}\nusage: passkey-server metadata check [--config file] [--blob new.jwt] [--app clientId] [--json]\n`,
    );
    return EXIT_USAGE;
  }
  try {
    const config = loadConfig({ file: values.config, env: io.env, cwd: io.cwd });
    const blob = values.blob === undefined ? undefined : resolve(io.cwd, values.blob);
    const reports = await checkMetadata(config, { blob, app: values.app }, runtime);
    io.stdout.write(values.json ? `${JSON.stringify(reports, null, 2)}\n` : formatReports(reports));
    return reports.some((r) => r.compromised.length > 0) ? EXIT_COMPROMISED : EXIT_OK;
  } catch (error) {
    const message =
      error instanceof FidoError
        ? `${error.code}${error.detail ? `: ${error.detail}` : ''}`
        : error instanceof Error
          ? error.message
          : String(error);
    io.stderr.write(`passkey-server: metadata check failed: ${message}\n`);
    return EXIT_FAILURE;
  }
}

export interface CheckOptions {
  /** A newer BLOB to verify and install in place of each selected application's file. */
  readonly blob?: string;
  /** Only this application. */
  readonly app?: string;
}

/** The work of the command without its printing: verify or install, then find compromised credentials. */
export async function checkMetadata(
  config: ServiceConfig,
  options: CheckOptions,
  runtime: Runtime = systemRuntime,
): Promise<ApplicationReport[]> {
  const now = new Date(runtime.now());
  const apps = config.applications.filter(
    (app) => app.attestation.metadata !== null && (options.app === undefined || app.clientId === options.app),
  );
  if (options.app !== undefined && apps.length === 0)
    throw new Error(`application "${options.app}" does not exist or has no attestation.metadata file`);
  if (apps.length === 0) throw new Error('no application configures attestation.metadata');
  const store = await openConfiguredCredentials(config);
  try {
    const reports: ApplicationReport[] = [];
    for (const app of apps) {
      const { blob, installed } = await currentBlob(app, options, now, runtime);
      const compromised = await findCompromised(store, app.clientId, indexMetadata(blob), now);
      reports.push({
        clientId: app.clientId,
        blob: {
          file: app.attestation.metadata!,
          serial: blob.serial,
          nextUpdate: blob.nextUpdate,
          stale: isStale(blob, now),
          installed,
        },
        revocation: {
          checked: blob.revocationChecked,
          crlFiles: app.attestation.metadataCrls ?? [],
          distributionPoints: chainDistributionPoints(blob.signingPath),
        },
        compromised,
      });
    }
    return reports;
  } finally {
    await store.close();
  }
}

/** The application's BLOB after this run: the installed one, or the newer one given (verified, then installed). */
async function currentBlob(
  app: ApplicationConfig,
  options: CheckOptions,
  now: Date,
  runtime: Runtime,
): Promise<{ blob: MetadataBlob; installed: boolean }> {
  const file = app.attestation.metadata!;
  const roots = metadataRootsFor(app.attestation);
  // The configured CRLs, as the service reads them at start: a new BLOB under a revoked chain is refused.
  const crls: Crl[] = await readCrlFiles(app.attestation.metadataCrls ?? []);
  if (options.blob === undefined) return { blob: await readMetadataFile(file, roots, now, crls), installed: false };
  const incoming = await readMetadataFile(options.blob, roots, now, crls);
  let current: MetadataBlob | undefined;
  try {
    current = await readMetadataFile(file, roots, now, crls);
  } catch {
    current = undefined; // a missing or broken installed file is replaced by any verified BLOB
  }
  if (current && incoming.serial < current.serial) {
    throw new FidoError(
      'METADATA_BLOB_NOT_NEWER',
      `${options.blob} has no ${incoming.serial}, the installed BLOB has no ${current.serial}`,
    );
  }
  if (current && incoming.serial === current.serial) return { blob: current, installed: false };
  await installAtomically(file, await readFile(options.blob, 'utf8'), runtime);
  return { blob: incoming, installed: true };
}

/** Write beside the target, then rename: a reader sees the old file or the new one, never half of one. */
async function installAtomically(file: string, text: string, runtime: Runtime): Promise<void> {
  const temp = `${file}.${runtime.randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, text, { mode: 0o644 });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

async function findCompromised(
  store: CredentialStore,
  clientId: string,
  metadata: MetadataIndex,
  now: Date,
): Promise<CompromisedCredential[]> {
  const out: CompromisedCredential[] = [];
  let after: string | undefined;
  for (;;) {
    const page: CredentialRecord[] = await store.listByApplication(clientId, {
      limit: PAGE,
      ...(after === undefined ? {} : { after }),
    });
    for (const credential of page) {
      // U2F credentials (zero AAGUID) are matched by attestation certificate, which is not stored.
      if (credential.aaguid === ZERO_AAGUID) continue;
      const entry = metadata.findByAaguid(credential.aaguid);
      const report = entry && refusingStatus(entry, now);
      if (!entry || !report) continue;
      out.push({
        clientId,
        credentialId: credential.credentialId,
        username: credential.username,
        aaguid: credential.aaguid,
        authenticator: entry.description ?? credential.authenticatorName ?? null,
        status: report.status,
        effectiveDate: report.effectiveDate === null ? null : new Date(report.effectiveDate).toISOString().slice(0, 10),
      });
    }
    if (page.length < PAGE) return out;
    after = page[page.length - 1]!.credentialId;
  }
}

function formatReports(reports: readonly ApplicationReport[]): string {
  const lines: string[] = [];
  for (const report of reports) {
    const { blob } = report;
    lines.push(
      `${report.clientId}: metadata BLOB no ${blob.serial}, next update ${blob.nextUpdate}${blob.stale ? ' (STALE: install a newer BLOB)' : ''}${blob.installed ? ', newly installed (running instances use it within the metadata check interval, or at once on SIGHUP)' : ''}`,
    );
    lines.push(...revocationLines(report.revocation));
    if (report.compromised.length === 0) {
      lines.push('  no stored credential belongs to a compromised or revoked authenticator');
      continue;
    }
    lines.push(`  ${report.compromised.length} credential(s) belong to an authenticator metadata now refuses:`);
    for (const c of report.compromised) {
      lines.push(
        `  ${c.credentialId}  ${c.username}  ${c.aaguid}  ${c.authenticator ?? '(unnamed)'}  ${c.status}${c.effectiveDate ? ` since ${c.effectiveDate}` : ''}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

function revocationLines(revocation: RevocationReport): string[] {
  const checked = revocation.checked
    ? `  revocation of the BLOB's signing chain: checked against ${revocation.crlFiles.length} CRL file(s), none revoked`
    : "  revocation of the BLOB's signing chain: NOT checked (no attestation.metadataCrls configured)";
  const points =
    revocation.distributionPoints.length > 0
      ? `  CRLs of the signing chain (fetch them next to the BLOB): ${revocation.distributionPoints.join(' ')}`
      : '  the signing chain names no CRL distribution points';
  return [checked, points];
}
