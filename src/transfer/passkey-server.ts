// The service's own format, `passkey-server` (docs/migration.md): JSON Lines, one passkey a line, every field
// the service keeps that another instance needs, as src/schemas/transfer.ts describes it. The reader checks
// each line against that schema; the writer writes what the reader reads, so an export imports unchanged.
import {
  PasskeyServerRecordSchema,
  RECORD_NAME_MAX,
  RECORD_TEXT_MAX,
  type PasskeyServerRecord,
} from '../schemas/transfer.js';
import { compile } from '../schemas/typebox.js';
import type { CredentialRecord } from '../stores/types.js';
import { decodeBase64url } from '../util/base64url.js';
import { readLines } from './lines.js';
import type { SourceItem, SourceReader, SourceRecord } from './record.js';
import type { RecordWriter } from './writer.js';

const RECORD = compile(PasskeyServerRecordSchema);
const NO_AAGUID = '00000000-0000-0000-0000-000000000000';

export const readPasskeyServer: SourceReader = async function* (input) {
  for await (const line of readLines(input)) {
    if ('tooLong' in line) {
      yield malformed(line.line, 'the line is longer than any record of the format');
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(line.text);
    } catch {
      yield malformed(line.line, 'the line is not JSON');
      continue;
    }
    if (!RECORD.check(value)) {
      yield malformed(line.line, RECORD.explain(value)[0] ?? 'not a record of the format');
      continue;
    }
    const record = sourceRecord(value);
    yield typeof record === 'string' ? malformed(line.line, record) : { at: line.line, record };
  }
};

function malformed(at: number, message: string): SourceItem {
  return { at, refused: { reason: 'MALFORMED_RECORD', message } };
}

/** The record a valid line states, or why it cannot be one. */
function sourceRecord(value: PasskeyServerRecord): SourceRecord | string {
  const publicKey = decodeBase64url(value.publicKey);
  if (publicKey === undefined) return '/publicKey: not base64url';
  const createdAt = time(value.createdAt);
  const lastUsedAt = time(value.lastUsedAt);
  if (Number.isNaN(createdAt) || Number.isNaN(lastUsedAt)) return 'a time is not an ISO 8601 date-time';
  return {
    username: value.username,
    userHandle: value.userHandle,
    displayName: value.displayName ?? null,
    credentialId: value.credentialId,
    publicKey,
    signCount: value.signCount,
    transports: value.transports ?? [],
    backupEligible: value.backupEligible ?? false,
    backupState: value.backupState ?? false,
    aaguid: value.aaguid ?? NO_AAGUID,
    nickname: value.name ?? null,
    createdAt,
    lastUsedAt,
    rpId: null,
    residentKey: value.residentKey ?? null,
    attestation: value.attestation ?? null,
    status: value.status ?? null,
  };
}

function time(text: string | null | undefined): number | null {
  return text == null ? null : Date.parse(text);
}

/** The line of one stored passkey (without its newline). */
export function passkeyServerLine(record: CredentialRecord): string {
  const line: PasskeyServerRecord = {
    username: record.username,
    userHandle: record.userHandle,
    displayName: fitting(record.displayName, RECORD_TEXT_MAX),
    credentialId: record.credentialId,
    publicKey: Buffer.from(record.publicKey).toString('base64url'),
    signCount: record.signCount,
    transports: record.transports.filter((t) => t.length > 0 && t.length <= 32).slice(0, 8),
    backupEligible: record.backupEligible,
    backupState: record.backupState,
    aaguid: record.aaguid,
    attestation: {
      format: record.attestationFormat,
      type: record.attestationType,
      trusted: record.attestationTrusted,
    },
    name: fitting(record.nickname, RECORD_NAME_MAX),
    createdAt: new Date(record.createdAt).toISOString(),
    lastUsedAt: record.lastUsedAt === null ? null : new Date(record.lastUsedAt).toISOString(),
    status: record.authenticatorStatus ?? null,
    residentKey: record.residentKey,
  };
  return JSON.stringify(line);
}

/** A text the schema takes (1 to `max` characters), else null: what an import would read back. */
function fitting(text: string | null | undefined, max: number): string | null {
  return text == null || text.length === 0 || text.length > max ? null : text;
}

/** Every page of stored passkeys as JSON Lines, one chunk a page. */
export const writePasskeyServer: RecordWriter = async function* (pages) {
  for await (const page of pages) {
    if (page.length > 0) yield `${page.map(passkeyServerLine).join('\n')}\n`;
  }
};
