// The rows of a CSV file with a header line, as SQL clients export a table (RFC 4180: fields in double quotes
// when they hold the separator, a quote doubled inside them, a quoted field may span lines), read from the
// lines of lines.ts (never the whole file). The separator is the header's: a comma, else a tab or a semicolon.
// An empty unquoted field, `\N` (MySQL) and `NULL` are null; a quoted empty field is the empty text.

import type { Line } from './lines.js';

/** A row by its header's column names, lower-cased; or why the row cannot be read. */
export type CsvRow =
  | { readonly line: number; readonly fields: Readonly<Record<string, string | null>> }
  | { readonly line: number; readonly error: string };

/** The most lines one quoted field may span (a display name with line breaks, never a record's key). */
const MAX_RECORD_LINES = 64;

/** The rows after the header; `line` is the line a row starts on. The header is the first non-blank line. */
export async function* readCsvRows(lines: AsyncIterable<Line>): AsyncIterable<CsvRow> {
  let header: string[] | undefined;
  let separator = ',';
  let pending: { line: number; text: string; count: number } | undefined;
  for await (const line of lines) {
    if ('tooLong' in line) {
      pending = undefined;
      yield { line: line.line, error: 'the line is longer than any record of the format' };
      continue;
    }
    let record = line.text;
    let at = line.line;
    if (pending !== undefined) {
      record = `${pending.text}\n${line.text}`;
      at = pending.line;
    }
    if (quoteCount(record) % 2 === 1) {
      const count = (pending?.count ?? 0) + 1;
      pending = count < MAX_RECORD_LINES ? { line: at, text: record, count } : undefined;
      if (pending === undefined)
        yield { line: at, error: `a quoted field is not closed within ${MAX_RECORD_LINES} lines` };
      continue;
    }
    pending = undefined;
    if (header === undefined) {
      separator = headerSeparator(record);
      const names = splitFields(record, separator);
      if (typeof names === 'string') {
        yield { line: at, error: `the header line: ${names}` };
        return;
      }
      header = names.map((name) => (name ?? '').trim().toLowerCase());
      continue;
    }
    const values = splitFields(record, separator);
    if (typeof values === 'string') {
      yield { line: at, error: values };
      continue;
    }
    if (values.length !== header.length) {
      yield { line: at, error: `the row has ${values.length} fields, the header ${header.length}` };
      continue;
    }
    const fields: Record<string, string | null> = {};
    header.forEach((name, i) => {
      fields[name] = values[i]!;
    });
    yield { line: at, fields };
  }
  if (pending !== undefined) yield { line: pending.line, error: 'the file ends inside a quoted field' };
}

function quoteCount(text: string): number {
  let n = 0;
  for (let i = text.indexOf('"'); i >= 0; i = text.indexOf('"', i + 1)) n++;
  return n;
}

function headerSeparator(text: string): string {
  const outside = text.replace(/"[^"]*"/g, '');
  if (outside.includes(',')) return ',';
  if (outside.includes('\t')) return '\t';
  if (outside.includes(';')) return ';';
  return ',';
}

/** The fields of one record (null for an unquoted empty field, `\N` or `NULL`), or why it is not CSV. */
export function splitFields(text: string, separator: string): (string | null)[] | string {
  const fields: (string | null)[] = [];
  let i = 0;
  for (;;) {
    if (text[i] === '"') {
      let value = '';
      let j = i + 1;
      for (;;) {
        const quote = text.indexOf('"', j);
        if (quote < 0) return 'a quoted field is not closed';
        value += text.slice(j, quote);
        if (text[quote + 1] === '"') {
          value += '"';
          j = quote + 2;
          continue;
        }
        i = quote + 1;
        break;
      }
      fields.push(value);
      if (i === text.length) return fields;
      if (text[i] !== separator) return `text after the closing quote of field ${fields.length}`;
      i++;
      continue;
    }
    const end = text.indexOf(separator, i);
    const raw = end < 0 ? text.slice(i) : text.slice(i, end);
    fields.push(raw === '' || raw === '\\N' || raw === 'NULL' ? null : raw);
    if (end < 0) return fields;
    i = end + 1;
  }
}
