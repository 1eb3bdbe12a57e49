#!/usr/bin/env node
// Writes docs/errors.md from the one catalogue, src/errors/catalogue.ts (joining its groups, the other files of
// src/errors/): every name, its HTTP status and its text,
// grouped by the catalogue's own sections. test/errors.test.ts fails when the two differ, so after adding a
// name run:  node scripts/gen-errors-doc.mjs
// (It reads the TypeScript source as text, so it needs no build.)
import { readFileSync, writeFileSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const source = readFileSync(new URL('src/errors/catalogue.ts', root), 'utf8');
/** The object text between `marker` and its closing `} as const`, from `text`. */
const objectBody = (text, marker) => text.slice(text.indexOf(marker), text.indexOf('} as const'));
// The catalogue joins the groups of src/errors/ by spreading them; put each group's text where it is spread.
const groupFiles = new Map(
  [...source.matchAll(/^import \{ ([A-Z_]+) \} from '\.\/([a-z-]+)\.js';$/gm)].map((m) => [m[1], m[2]]),
);
const body = objectBody(source, 'export const ERRORS = {').replace(/^\s*\.\.\.([A-Z_]+),\s*$/gm, (_, name) => {
  if (!groupFiles.has(name))
    throw new Error(`scripts/gen-errors-doc.mjs: no import of ${name} in src/errors/catalogue.ts`);
  const group = readFileSync(new URL(`src/errors/${groupFiles.get(name)}.ts`, root), 'utf8');
  return objectBody(group, `export const ${name} = {`);
});

// A heading `// --- Title ---` opens a section; an entry may span lines (as the formatter wraps it).
const sections = [];
const quoted = String.raw`'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"`;
const token = new RegExp(
  String.raw`^\s*\/\/ --- (.+?) ---\s*$|^\s*([A-Z][A-Z0-9_]*):\s*\{\s*status:\s*(\d{3}),\s*message:\s*(${quoted}),?\s*\}|^\s*([A-Z][A-Z0-9_]*):`,
  'gm',
);
for (const match of body.matchAll(token)) {
  if (match[1]) {
    sections.push({ title: match[1], entries: [] });
  } else if (match[2]) {
    if (sections.length === 0) sections.push({ title: 'Errors', entries: [] });
    const message = match[4].slice(1, -1).replace(/\\(.)/g, '$1');
    sections.at(-1).entries.push({ name: match[2], status: Number(match[3]), message });
  } else {
    throw new Error(`scripts/gen-errors-doc.mjs cannot read this catalogue entry:\n${match[0]}`);
  }
}

const cell = (text) => text.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const count = sections.reduce((n, s) => n + s.entries.length, 0);
const out = [
  '# Error names',
  '',
  '<!-- Generated from src/errors/catalogue.ts by scripts/gen-errors-doc.mjs. Do not edit by hand: test/errors.test.ts compares. -->',
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
