// The one registry of formats: the reader of each `--from` format and the writer of each `--to` format
// (record.ts names them). A new format is its file and one row here; a format without a row is refused by
// name (docs/migration.md).
import { readHanko } from './from-hanko.js';
import { readKeycloak } from './from-keycloak.js';
import { readLineFido2Server } from './from-line-fido2-server.js';
import { readSimpleWebAuthn } from './from-simplewebauthn.js';
import { readPasskeyServer, writePasskeyServer } from './passkey-server.js';
import { writeHanko } from './to-hanko.js';
import type { ExportFormat, ImportFormat, SourceReader } from './record.js';
import type { RecordWriter } from './writer.js';

export const READERS: Partial<Record<ImportFormat, SourceReader>> = {
  'passkey-server': readPasskeyServer,
  simplewebauthn: readSimpleWebAuthn,
  keycloak: readKeycloak,
  hanko: readHanko,
  'line-fido2-server': readLineFido2Server,
};

export const WRITERS: Partial<Record<ExportFormat, RecordWriter>> = {
  'passkey-server': writePasskeyServer,
  hanko: writeHanko,
};
