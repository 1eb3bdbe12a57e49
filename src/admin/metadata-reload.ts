// POST /admin/metadata/reload: the metadata BLOBs read again, the reload audited, and its answer (docs/admin.md
// "Metadata").
import type { MetadataReloadReport } from '../applications/trust-reload.js';
import type { AuditLog } from '../audit/log.js';
import { type Answer, json } from './answers.js';
import type { Actor } from './audited.js';
import { AdminError } from './errors.js';

/** Reloads the metadata BLOBs and audits it: failed when a BLOB did not verify (the answer says which). */
export async function reloadMetadata(
  reload: () => Promise<MetadataReloadReport>,
  audit: AuditLog,
  actor: Actor,
): Promise<Answer> {
  const report = await reload();
  const failed = report.applications.find((application) => !application.ok);
  await audit.record({
    actor: actor.name,
    action: 'metadata.reload',
    result: failed ? 'failed' : 'ok',
    errorName: failed?.error?.split(':', 1)[0] ?? null,
    requestId: actor.requestId ?? null,
    remoteAddress: actor.remoteAddress ?? null,
    details: {
      changed: report.changed,
      applications: report.applications.map((application) => application.clientId),
    },
  });
  return reloadAnswer(report);
}

/**
 * 200 with the report when every BLOB was taken. A failed reload is the operator's input (a BLOB or CRL that
 * does not verify, a file gone), so 422, which `curl -f` and deploy scripts see: the admin error envelope
 * (METADATA_RELOAD_FAILED, one problem per failing application) around the same report.
 */
function reloadAnswer(report: MetadataReloadReport): Answer {
  if (report.ok) return json(200, report);
  const error = new AdminError(
    'METADATA_RELOAD_FAILED',
    undefined,
    report.applications
      .filter((application) => !application.ok)
      .map((application) => `${application.clientId}: ${application.error ?? 'failed'}`),
  );
  return json(error.status, { error: error.code, message: error.message, problems: error.problems, ...report });
}
