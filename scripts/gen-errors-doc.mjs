#!/usr/bin/env node
// Writes docs/errors.md from the one catalogue, src/errors.ts: every name, its HTTP status and its text,
// grouped by the catalogue's own sections. test/errors.test.ts fails when the two differ, so after adding a
// name run:  node scripts/gen-errors-doc.mjs
// (It reads the TypeScript source as text, so it needs no build.)
import { readFileSync, writeFileSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const source = readFileSync(new URL('src/errors.ts', root), 'utf8');
const body = source.slice(source.indexOf('export const ERRORS = {'), source.indexOf('} as const satisfies'));

const sections = [];
for (const line of body.split('\n')) {
  const heading = line.match(/^\s*\/\/ --- (.+?) ---\s*$/);
  if (heading) {
    sections.push({ title: heading[1], entries: [] });
    continue;
  }
  const entry = line.match(/^\s*([A-Z][A-Z0-9_]*): \{ status: (\d{3}), message: '((?:[^'\\]|\\.)*)' \},?\s*$/);
  if (entry) {
    if (sections.length === 0) sections.push({ title: 'Errors', entries: [] });
    sections.at(-1).entries.push({ name: entry[1], status: Number(entry[2]), message: entry[3].replace(/\\(.)/g, '$1') });
  } else if (/^\s*[A-Z][A-Z0-9_]*:/.test(line)) {
    throw new Error(`scripts/gen-errors-doc.mjs cannot read this catalogue line (keep one entry per line):\n${line}`);
  }
}

const cell = (text) => text.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const count = sections.reduce((n, s) => n + s.entries.length, 0);
const out = [
  '# Error names',
  '',
  '<!-- Generated from src/errors.ts by scripts/gen-errors-doc.mjs. Do not edit by hand: test/errors.test.ts compares. -->',
  '',
  'Every failed answer of the four operations is the envelope',
  '',
  '```json',
  '{ "status": "failed", "errorMessage": ["<NAME>", "<description>"], "sessionId": "" }',
  '```',
  '',
  'with the HTTP status below. `errorMessage[0]` is the name: it is API, clients may match on it, and it never',
  'changes meaning. `errorMessage[1]` is prose for the integrator: usually the text below, or a more precise one',
  'naming the field or value at fault (e.g. `response.clientDataJSON must be a non-empty base64url string`).',
  'Descriptions never contain secrets, stack traces, or whether a user exists. Every answer carries an',
  '`X-Request-Id` header; for `INTERNAL_SERVER_ERROR` and `SERVICE_UNAVAILABLE` the service log holds the details',
  'under that id. `RATE_LIMITED` answers carry `Retry-After` (seconds); `METHOD_NOT_ALLOWED` answers carry `Allow: POST`.',
  '',
  'Names come from the open-source FIDO2 server the specification is modelled on (LINE fido2-server, see',
  '[decisions.md](decisions.md), "Error vocabulary") where one fits; the others are ours. A result call consumes its challenge',
  'whatever the outcome, so after any failure past the ceremony lookup the caller asks for new options.',
  '',
  `The catalogue holds ${count} names.`,
  '',
];
for (const section of sections) {
  out.push(`## ${section.title}`, '', '| Name | HTTP | Meaning |', '|---|---|---|');
  for (const e of section.entries) out.push(`| \`${e.name}\` | ${e.status} | ${cell(e.message)} |`);
  out.push('');
}
writeFileSync(new URL('docs/errors.md', root), out.join('\n'));
console.log(`docs/errors.md: ${count} names in ${sections.length} sections`);
