// `line-fido2-server` (docs/migration.md): rows of LINE fido2-server's USER_KEY table with its
// AUTHENTICATOR_TRANSPORT rows joined in, as CSV with a header line (what a SQL client exports) or as JSON
// Lines (one object a row, what JSON_OBJECT or row_to_json write), columns named as the table's. The key is
// stored as base64url of its X.509 SubjectPublicKeyInfo and becomes a COSE key for `signature_algorithm`;
// `user_id` is already the base64url user handle; `rp_entity_id` is the RP ID the import compares.
import { readCsvRows } from './csv-records.js';
import { type Line, readLines } from './lines.js';
import type { SourceItem, SourceReader } from './record.js';
import {
  aaguid,
  binary,
  counter,
  FieldError,
  type Fields,
  flag,
  isObject,
  jsonLineValues,
  malformedAt,
  optionalText,
  readRecord,
  requiredText,
  time,
  transports,
} from './source-fields.js';
import { coseFromSpki } from './spki-cose.js';

export const readLineFido2Server: SourceReader = async function* (input) {
  const lines = readLines(input)[Symbol.asyncIterator]();
  let first = await lines.next();
  while (!first.done && 'tooLong' in first.value) {
    yield malformedAt(first.value.line, 'the line is longer than any record of the format');
    first = await lines.next();
  }
  if (first.done) return;
  const rest = async function* (head: Line): AsyncIterable<Line> {
    yield head;
    for (let next = await lines.next(); !next.done; next = await lines.next()) yield next.value;
  };
  if ((first.value as { text: string }).text.trimStart().startsWith('{')) {
    for await (const item of jsonLineValues(rest(first.value))) {
      if (!('value' in item)) yield item;
      else if (!isObject(item.value)) yield malformedAt(item.at, 'the line is not a JSON object');
      else yield lineRecord(item.at, lowerCaseKeys(item.value));
    }
    return;
  }
  for await (const row of readCsvRows(rest(first.value))) {
    yield 'error' in row ? malformedAt(row.line, row.error) : lineRecord(row.line, row.fields);
  }
};

function lowerCaseKeys(value: Fields): Fields {
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key.toLowerCase(), v]));
}

/** One USER_KEY row (columns lower-cased) as a record. */
export function lineRecord(at: number, row: Fields): SourceItem {
  return readRecord(at, () => {
    const algorithmText = row.signature_algorithm;
    const alg =
      typeof algorithmText === 'number' ? algorithmText : Number(requiredText(algorithmText, 'signature_algorithm'));
    if (!Number.isInteger(alg)) throw new FieldError('signature_algorithm: not a COSE algorithm number');
    const key = coseFromSpki(binary(row.public_key, 'public_key'), alg);
    if ('reason' in key) return { at, refused: { reason: key.reason, message: `public_key: ${key.message}` } };
    return {
      at,
      record: {
        username: requiredText(row.username, 'username'),
        userHandle: requiredText(row.user_id, 'user_id'),
        displayName: optionalText(row.user_display_name, 'user_display_name'),
        credentialId: requiredText(row.credential_id, 'credential_id'),
        publicKey: key.cose,
        signCount: counter(row.sign_counter, 'sign_counter', 0),
        transports: transports(row.transports, 'transports'),
        // USER_KEY keeps no backup flags: a synced passkey reports them at its next sign-in.
        backupEligible: false,
        backupState: false,
        aaguid: aaguid(row.aaguid, 'aaguid'),
        nickname: null,
        createdAt: time(row.registered_timestamp, 'registered_timestamp'),
        lastUsedAt: time(row.authenticated_timestamp, 'authenticated_timestamp'),
        rpId: optionalText(row.rp_entity_id, 'rp_entity_id'),
        residentKey: flag(row.rk, 'rk', null),
        attestation: null,
        status: null,
      },
    };
  });
}
