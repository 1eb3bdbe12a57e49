// What the admin API and CLI show: applications and credentials as JSON, times in ISO 8601, no key bytes.
import type { CredentialView } from '../schemas/admin.js';
import type { ApplicationSchema } from '../schemas/applications.js';
import type { Shape } from '../schemas/typebox.js';
import type { CredentialRecord } from '../stores/types.js';
import { effectiveVariants } from '../applications/directory.js';
import { redactedUrl } from '../config/webhook-urls.js';
import type { ApplicationRecord } from '../stores/types.js';
import { bundledCatalog, describeAuthenticator, type AuthenticatorCatalog } from '../authenticators/index.js';

/** An application as the admin API and CLI show it (schemas/applications.ts `ApplicationSchema`). */
export type ApplicationView = Shape<typeof ApplicationSchema>;

/** A webhook secret written in the config file is never shown; an `env:<NAME>` reference is. */
export const REDACTED_SECRET = 'whsec_redactedredactedredacted';

export function applicationView(record: ApplicationRecord): ApplicationView {
  // Its relay secrets' hashes are never shown (GET …/relay-secrets lists them by id: docs/admin.md).
  const { relaySecrets: _hashes, ...config } = record.config;
  const { webhooks } = config;
  return {
    ...config,
    ...(webhooks === undefined
      ? {}
      : {
          webhooks: webhooks.map((w) => ({
            ...w,
            url: redactedUrl(w.url),
            secret: w.secret.startsWith('env:') ? w.secret : REDACTED_SECRET,
          })),
        }),
    approved: record.approved,
    disabled: record.disabled,
    activeVariants: effectiveVariants(record),
    source: record.source,
    createdAt: new Date(record.createdAt).toISOString(),
    updatedAt: new Date(record.updatedAt).toISOString(),
  };
}

/** A credential as the admin API and CLI show it (schemas/admin.ts `CredentialSchema`). */
export type { CredentialView };

export function credentialView(
  record: CredentialRecord,
  catalog: AuthenticatorCatalog = bundledCatalog(),
): CredentialView {
  const authenticator = describeAuthenticator(
    { aaguid: record.aaguid, metadataName: record.authenticatorName, proven: record.aaguidProven === true },
    catalog,
  );
  return {
    clientId: record.clientId,
    credentialId: record.credentialId,
    userHandle: record.userHandle,
    username: record.username,
    nickname: record.nickname ?? null,
    authenticatorName: authenticator.name,
    authenticatorIconLight: authenticator.iconLight,
    authenticatorIconDark: authenticator.iconDark,
    authenticatorVerified: authenticator.verified,
    aaguid: record.aaguid,
    algorithm: record.algorithm,
    transports: [...record.transports],
    backupEligible: record.backupEligible,
    backupState: record.backupState,
    userVerified: record.userVerified,
    residentKey: record.residentKey,
    attestationFormat: record.attestationFormat,
    attestationType: record.attestationType,
    attestationTrusted: record.attestationTrusted,
    signCount: record.signCount,
    cloneWarning: record.cloneWarning,
    createdAt: new Date(record.createdAt).toISOString(),
    lastUsedAt: record.lastUsedAt === null ? null : new Date(record.lastUsedAt).toISOString(),
    authenticatorStatus: record.authenticatorStatus ?? null,
    authenticatorStatusAt:
      record.authenticatorStatusAt == null ? null : new Date(record.authenticatorStatusAt).toISOString(),
  };
}
