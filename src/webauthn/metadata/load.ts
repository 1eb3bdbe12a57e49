// Reads the operator's MDS3 BLOB file and the CRLs of its signing chain (at start and from the `metadata
// check` command; never per request, never from the network: the operator places the files,
// docs/attestation.md says how).

import type { X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { FidoError } from '../../errors/catalogue.js';
import { CrlError, MAX_CRL_BYTES, parseCrls, type Crl } from '../crl.js';
import { verifyMetadataBlob } from './blob.js';
import type { MetadataBlob } from './types.js';

/** The real BLOB is a few megabytes; anything far larger is not one. */
const MAX_BLOB_BYTES = 64 * 1024 * 1024;

function tooLarge(file: string): FidoError {
  return new FidoError('METADATA_BLOB_INVALID', `${file} is larger than ${MAX_BLOB_BYTES} bytes`);
}

/** `crls`: the parsed `attestation.metadataCrls` (readCrlFiles); absent or empty = revocation not checked. */
export function readMetadataFileSync(
  file: string,
  roots: readonly X509Certificate[],
  now: Date,
  crls: readonly Crl[] = [],
): MetadataBlob {
  if (statSync(file).size > MAX_BLOB_BYTES) throw tooLarge(file);
  return verifyMetadataBlob(readFileSync(file, 'utf8'), roots, now, { crls });
}

export async function readMetadataFile(
  file: string,
  roots: readonly X509Certificate[],
  now: Date,
  crls: readonly Crl[] = [],
): Promise<MetadataBlob> {
  if ((await stat(file)).size > MAX_BLOB_BYTES) throw tooLarge(file);
  return verifyMetadataBlob(await readFile(file, 'utf8'), roots, now, { crls });
}

/** A CRL that does not parse, or a file system error, as METADATA_BLOB_CRL_INVALID; anything else is a bug and stays as it is. */
function crlProblem(file: string, error: unknown): unknown {
  if (error instanceof CrlError) return new FidoError('METADATA_BLOB_CRL_INVALID', error.message);
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string'
    ? new FidoError('METADATA_BLOB_CRL_INVALID', `${file} cannot be read (${code})`)
    : error;
}

/** The CRLs of `attestation.metadataCrls` (PEM or DER files). Throws METADATA_BLOB_CRL_INVALID naming the file. */
export function readCrlFilesSync(files: readonly string[]): Crl[] {
  return files.flatMap((file) => {
    try {
      if (statSync(file).size > MAX_CRL_BYTES) throw new CrlError(`${file} is larger than ${MAX_CRL_BYTES} bytes`);
      return parseCrls(readFileSync(file), file);
    } catch (error) {
      throw crlProblem(file, error);
    }
  });
}

export async function readCrlFiles(files: readonly string[]): Promise<Crl[]> {
  const out: Crl[] = [];
  for (const file of files) {
    try {
      if ((await stat(file)).size > MAX_CRL_BYTES) throw new CrlError(`${file} is larger than ${MAX_CRL_BYTES} bytes`);
      out.push(...parseCrls(await readFile(file), file));
    } catch (error) {
      throw crlProblem(file, error);
    }
  }
  return out;
}
