// Validation of an application's `attestation` policy: its trust anchors, metadata BLOB, roots and CRLs
// (files that must exist and parse, so a broken one fails at start with the key that names it), and its
// AAGUID lists.
import { X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { AttestationPolicy } from '../config.js';
import { CrlError, MAX_CRL_BYTES, parseCrls } from '../webauthn/crl.js';
import { ATTESTATION_KEYS } from '../schemas/applications.js';
import { joinPath, readArray, readBoolean, readObject, readString, type JsonObject, type Problems } from './checks.js';

const AAGUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What reading an application needs: where problems go, and how the paths of its policy's files resolve. */
export interface ApplicationContext {
  readonly problems: Problems;
  /** Resolves a (possibly relative) path written at `keyPath`. */
  readonly resolvePath: (keyPath: string, value: string) => string;
}

export function emptyPolicy(): AttestationPolicy {
  return {
    trustAnchors: [],
    requireTrusted: false,
    metadata: null,
    metadataRoots: [],
    enforceStatusAtAuthentication: false,
    aaguidAllow: [],
    aaguidDeny: [],
  };
}

export function readAttestation(ctx: ApplicationContext, path: string, raw: unknown): AttestationPolicy | undefined {
  const { problems } = ctx;
  const policy: JsonObject | undefined = readObject(problems, path, raw, ATTESTATION_KEYS);
  if (policy === undefined) return undefined;
  const at = (key: string) => joinPath(path, key);
  const trustAnchors =
    policy.trustAnchors === undefined
      ? []
      : readArray(problems, at('trustAnchors'), policy.trustAnchors, (p, v) => readAnchorFile(ctx, p, v));
  const requireTrusted =
    policy.requireTrusted === undefined ? false : readBoolean(problems, at('requireTrusted'), policy.requireTrusted);
  const metadata =
    policy.metadata === undefined || policy.metadata === null
      ? null
      : readExistingFile(ctx, at('metadata'), policy.metadata);
  const metadataRoots =
    policy.metadataRoots === undefined
      ? []
      : readArray(problems, at('metadataRoots'), policy.metadataRoots, (p, v) => readAnchorFile(ctx, p, v));
  const enforceStatusAtAuthentication =
    policy.enforceStatusAtAuthentication === undefined
      ? false
      : readBoolean(problems, at('enforceStatusAtAuthentication'), policy.enforceStatusAtAuthentication);
  if (metadataRoots !== undefined && metadataRoots.length > 0 && policy.metadata == null) {
    problems.add(
      at('metadataRoots'),
      'is set but metadata is not: the roots sign the metadata BLOB, so give the BLOB too',
    );
  }
  const metadataCrls =
    policy.metadataCrls === undefined
      ? []
      : readArray(problems, at('metadataCrls'), policy.metadataCrls, (p, v) => readCrlFile(ctx, p, v), { max: 64 });
  if (metadataCrls !== undefined && metadataCrls.length > 0 && policy.metadata == null) {
    problems.add(
      at('metadataCrls'),
      "is set but metadata is not: the CRLs cover the metadata BLOB's signing chain, so give the BLOB too",
    );
  }
  const aaguidAllow =
    policy.aaguidAllow === undefined
      ? []
      : readArray(problems, at('aaguidAllow'), policy.aaguidAllow, (p, v) => readAaguid(problems, p, v));
  const aaguidDeny =
    policy.aaguidDeny === undefined
      ? []
      : readArray(problems, at('aaguidDeny'), policy.aaguidDeny, (p, v) => readAaguid(problems, p, v));
  for (const aaguid of aaguidAllow ?? []) {
    if (aaguidDeny?.includes(aaguid))
      problems.add(at('aaguidDeny'), `${aaguid} is also in aaguidAllow; an AAGUID can be in only one list`);
  }
  if (
    trustAnchors === undefined ||
    requireTrusted === undefined ||
    metadata === undefined ||
    metadataRoots === undefined ||
    metadataCrls === undefined ||
    enforceStatusAtAuthentication === undefined ||
    aaguidAllow === undefined ||
    aaguidDeny === undefined
  ) {
    return undefined;
  }
  // metadataCrls only when written: a policy without it stays exactly as before (stored policies compare by value).
  return {
    trustAnchors,
    requireTrusted,
    metadata,
    metadataRoots,
    ...(policy.metadataCrls === undefined ? {} : { metadataCrls }),
    enforceStatusAtAuthentication,
    aaguidAllow,
    aaguidDeny,
  };
}

function readAaguid(problems: Problems, path: string, value: unknown): string | undefined {
  const text = readString(problems, path, value, {
    pattern: AAGUID_PATTERN,
    hint: 'an AAGUID is a dashed UUID such as "cb69481e-8ff7-4039-93ec-0a2729a154a8"',
  });
  return text?.toLowerCase();
}

/** An absolute path to an existing regular file, or undefined (and a problem). */
function readExistingFile(ctx: ApplicationContext, path: string, value: unknown): string | undefined {
  const text = readString(ctx.problems, path, value, { max: 4096 });
  if (text === undefined) return undefined;
  const file = ctx.resolvePath(path, text);
  try {
    if (!statSync(file).isFile()) {
      ctx.problems.add(path, `${file} is not a file`);
      return undefined;
    }
  } catch (error) {
    ctx.problems.add(path, `${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    return undefined;
  }
  return file;
}

/** A trust anchor file must hold at least one PEM certificate that parses; a broken anchor fails at start, not at the first registration. */
function readAnchorFile(ctx: ApplicationContext, path: string, value: unknown): string | undefined {
  const file = readExistingFile(ctx, path, value);
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
function readCrlFile(ctx: ApplicationContext, path: string, value: unknown): string | undefined {
  const file = readExistingFile(ctx, path, value);
  if (file === undefined) return undefined;
  try {
    if (statSync(file).size > MAX_CRL_BYTES) {
      ctx.problems.add(path, `${file} is larger than ${MAX_CRL_BYTES} bytes`);
      return undefined;
    }
    parseCrls(readFileSync(file), file);
  } catch (error) {
    if (error instanceof CrlError) {
      ctx.problems.add(path, error.message);
      return undefined;
    }
    ctx.problems.add(path, `${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    return undefined;
  }
  return file;
}
