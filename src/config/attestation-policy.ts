// The checks of an application's `attestation` policy beyond its shape: its trust anchors, metadata BLOB,
// roots and CRLs are files that must exist and parse (so a broken one fails at start with the key that
// names it), the keys that need `metadata`, and its AAGUID lists (lowered, in one list only).
import { X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { CrlError, MAX_CRL_BYTES, parseCrls } from '../webauthn/crl.js';
import type { WebhookUrlRules } from './webhook-urls.js';
import { eachEntry, joinPath, type Problems, type Raw } from './checks.js';

/** What reading an application needs: where problems go, and how the paths of its policy's files resolve. */
export interface ApplicationContext {
  readonly problems: Problems;
  /** Resolves a (possibly relative) path written at `keyPath`. */
  readonly resolvePath: (keyPath: string, value: string) => string;
  /** The environment `relaySecrets` entries `env:<NAME>` read (config file only; absent: such entries are refused). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** `webhookDelivery`'s URL rules (absent: the strict ones). */
  readonly webhookRules?: WebhookUrlRules;
}

/** Checks `policy` (shape checked, with its defaults), writing its paths back resolved and its AAGUIDs lowered. */
export function checkAttestation(ctx: ApplicationContext, path: string, policy: Raw): void {
  const { problems } = ctx;
  const at = (key: string) => joinPath(path, key);
  const anchors = (p: string, v: unknown) => anchorFile(ctx, p, v as string);
  eachEntry(problems, at('trustAnchors'), policy.trustAnchors, anchors);
  if (typeof policy.metadata === 'string' && problems.clean(at('metadata')))
    policy.metadata = checkedFile(ctx, at('metadata'), policy.metadata) ?? policy.metadata;
  const roots = eachEntry(problems, at('metadataRoots'), policy.metadataRoots, anchors);
  const needsMetadata = (key: string, list: unknown[] | undefined, why: string) => {
    if (list !== undefined && list.length > 0 && problems.clean(at(key)) && policy.metadata == null)
      problems.add(at(key), `is set but metadata is not: ${why}, so give the BLOB too`);
  };
  needsMetadata('metadataRoots', roots, 'the roots sign the metadata BLOB');
  const crls = eachEntry(problems, at('metadataCrls'), policy.metadataCrls, (p, v) => crlFile(ctx, p, v as string));
  needsMetadata('metadataCrls', crls, "the CRLs cover the metadata BLOB's signing chain");
  const lower = (_p: string, v: unknown) => (v as string).toLowerCase();
  const allow = eachEntry(problems, at('aaguidAllow'), policy.aaguidAllow, lower);
  const deny = eachEntry(problems, at('aaguidDeny'), policy.aaguidDeny, lower);
  if (allow === undefined || deny === undefined || !problems.clean(at('aaguidAllow'))) return;
  if (!problems.clean(at('aaguidDeny'))) return;
  for (const aaguid of allow) {
    if (deny.includes(aaguid))
      problems.add(at('aaguidDeny'), `${String(aaguid)} is also in aaguidAllow; an AAGUID can be in only one list`);
  }
}

/** What a file holds that makes it unusable (the message names the file). */
class Unusable extends Error {}

/**
 * The one check of a file the policy names: the absolute path of an existing regular file that `read` (when
 * given) accepts, or undefined and a problem at `path`: not a file, unreadable (with the system's code), or
 * what `read` found wrong in it (an `Unusable` or a CrlError, with its own message).
 */
function checkedFile(ctx: ApplicationContext, path: string, value: string, read?: (file: string) => void) {
  const file = ctx.resolvePath(path, value);
  try {
    if (!statSync(file).isFile()) return ctx.problems.addIfAny(path, `${file} is not a file`);
    read?.(file);
    return file;
  } catch (error) {
    const own = error instanceof Unusable || error instanceof CrlError;
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    return ctx.problems.addIfAny(path, own ? error.message : `${file} cannot be read (${code})`);
  }
}

/** A trust anchor file must hold at least one PEM certificate that parses; a broken anchor fails at start, not at the first registration. */
function anchorFile(ctx: ApplicationContext, path: string, value: string): string | undefined {
  return checkedFile(ctx, path, value, (file) => {
    const blocks = readFileSync(file, 'utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
    if (blocks === null) throw new Unusable(`${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
    for (const [index, block] of blocks.entries()) {
      try {
        new X509Certificate(block);
      } catch {
        throw new Unusable(`${file}: certificate ${index + 1} does not parse`);
      }
    }
  });
}

/**
 * A CRL file of `metadataCrls` must hold CRLs that parse (PEM or DER): a broken file fails at start with
 * the key that names it. Whether each CRL is signed, current and covers the chain is decided when the
 * BLOB is read (METADATA_BLOB_CRL_*).
 */
function crlFile(ctx: ApplicationContext, path: string, value: string): string | undefined {
  return checkedFile(ctx, path, value, (file) => {
    if (statSync(file).size > MAX_CRL_BYTES) throw new Unusable(`${file} is larger than ${MAX_CRL_BYTES} bytes`);
    parseCrls(readFileSync(file), file);
  });
}
