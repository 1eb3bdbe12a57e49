// Reads the operator's MDS3 BLOB file (at start and from the `metadata check` command; never per request,
// never from the network: the operator places the file, docs/attestation.md says how).

import type { X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { FidoError } from '../../errors.js';
import { verifyMetadataBlob } from './blob.js';
import type { MetadataBlob } from './types.js';

/** The real BLOB is a few megabytes; anything far larger is not one. */
const MAX_BLOB_BYTES = 64 * 1024 * 1024;

function tooLarge(file: string): FidoError {
  return new FidoError('METADATA_BLOB_INVALID', `${file} is larger than ${MAX_BLOB_BYTES} bytes`);
}

export function readMetadataFileSync(file: string, roots: readonly X509Certificate[], now: Date): MetadataBlob {
  if (statSync(file).size > MAX_BLOB_BYTES) throw tooLarge(file);
  return verifyMetadataBlob(readFileSync(file, 'utf8'), roots, now);
}

export async function readMetadataFile(file: string, roots: readonly X509Certificate[], now: Date): Promise<MetadataBlob> {
  if ((await stat(file)).size > MAX_BLOB_BYTES) throw tooLarge(file);
  return verifyMetadataBlob(await readFile(file, 'utf8'), roots, now);
}
