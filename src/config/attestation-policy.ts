// The checks of an application's `attestation` policy beyond its shape: its trust anchors, metadata BLOB,
// roots and CRLs are files that must exist and parse (so a broken one fails at start with the key that
// names it), the keys that need `metadata`, and its AAGUID lists (lowered, in one list only).
import { X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { CrlError, MAX_CRL_BYTES, parseCrls } from '../webauthn/crl.js';
import { eachEntry, joinPath, type Problems, type Raw } from './checks.js';

/** What reading an application needs: where problems go, and how the paths of its policy's files resolve. */
export interface ApplicationContext {
  readonly problems: Problems;
  /** Resolves a (possibly relative) path written at `keyPath`. */
  readonly resolvePath: (keyPath: string, value: string) => string;
  /** The environment `relaySecrets` entries `env:<NAME>` read (config file only; absent: such entries are refused). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** `webhookDelivery.allowLoopbackHttp`: webhook URLs may be http:// to a loopback host. */
  readonly allowLoopbackHttp?: boolean;
}

/** Checks `policy` (shape checked, with its defaults), writing its paths back resolved and its AAGUIDs lowered. */
export function checkAttestation(ctx: ApplicationContext, path: string, policy: Raw): void {
  const { problems } = ctx;
  const at = (key: string) => joinPath(path, key);
  const anchors = (p: string, v: unknown) => anchorFile(ctx, p, v as string);
  eachEntry(problems, at('trustAnchors'), policy.trustAnchors, anchors);
  if (typeof policy.metadata === 'string' && problems.clean(at('metadata')))
    policy.metadata = existingFile(ctx, at('metadata'), policy.metadata) ?? policy.metadata;
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

/** The absolute path of an existing regular file, or undefined (and a problem). */
function existingFile(ctx: ApplicationContext, path: string, value: string): string | undefined {
  const file = ctx.resolvePath(path, value);
  try {
    if (statSync(file).isFile()) return file;
    ctx.problems.add(path, `${file} is not a file`);
  } catch (error) {
    ctx.problems.add(path, `${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return undefined;
}

/** A trust anchor file must hold at least one PEM certificate that parses; a broken anchor fails at start, not at the first registration. */
function anchorFile(ctx: ApplicationContext, path: string, value: string): string | undefined {
  const file = existingFile(ctx, path, value);
  if (file === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    ctx.problems.add(path, `${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    return undefined;
  }
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) {
    ctx.problems.add(path, `${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
    return undefined;
  }
  for (const [index, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch {
      ctx.problems.add(path, `${file}: certificate ${index + 1} does not parse`);
      return undefined;
    }
  }
  return file;
}

/**
 * A CRL file of `metadataCrls` must hold CRLs that parse (PEM or DER): a broken file fails at start with
 * the key that names it. Whether each CRL is signed, current and covers the chain is decided when the
 * BLOB is read (METADATA_BLOB_CRL_*).
 */
function crlFile(ctx: ApplicationContext, path: string, value: string): string | undefined {
  const file = existingFile(ctx, path, value);
  if (file === undefined) return undefined;
  try {
    if (statSync(file).size > MAX_CRL_BYTES) {
      ctx.problems.add(path, `${file} is larger than ${MAX_CRL_BYTES} bytes`);
      return undefined;
    }
    parseCrls(readFileSync(file), file);
  } catch (error) {
    ctx.problems.add(
      path,
      error instanceof CrlError
        ? error.message
        : `${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
    return undefined;
  }
  return file;
}
