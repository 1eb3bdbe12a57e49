// docs/conformance.md names tests by their titles; a renamed or removed test must not leave the page
// pointing at nothing. Checks every quoted title of the sections that name tests outside
// test/ceremonies/conformance.test.ts (whose titles carry the section and case id instead).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function testFiles(dir: string): string[] {
  return readdirSync(join(repo, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Every it() title in the source, template placeholders kept as written (`${status}`). */
function titles(): string[] {
  const files = [...testFiles('test/webauthn'), ...testFiles('test/ceremonies'), ...testFiles('test/cli')];
  return files.flatMap((file) => {
    const source = readFileSync(join(repo, file), 'utf8');
    // The formatter may put a long title on the line after `it(` and writes one with an apostrophe in
    // double quotes.
    const single = [...source.matchAll(/\bit\(\s*'((?:[^'\\]|\\.)*)'/g)].map((m) => m[1]!.replace(/\\'/g, "'"));
    const double = [...source.matchAll(/\bit\(\s*"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\"/g, '"'));
    const templated = [...source.matchAll(/\bit\(\s*`([^`]*)`/g)].map((m) => m[1]!);
    return [...single, ...double, ...templated];
  });
}

/** A doc title as a pattern: "…" stands for any text (an elided part or a placeholder). */
function pattern(docTitle: string): RegExp {
  const parts = docTitle
    .replace(/\s+/g, ' ')
    .split('…')
    .map((part) => part.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(parts.join('.*'));
}

/** The quoted titles in the table rows and paragraphs of the named sections, and the §2.6 paragraph. */
function docTitles(): string[] {
  const doc = readFileSync(join(repo, 'docs', 'conformance.md'), 'utf8');
  const sections = doc.split(/^## /m).filter((s) => /^§2\.(7|10|11|12|17) /.test(s));
  const paragraph = doc.slice(doc.indexOf('The path rules behind these cases'), doc.indexOf('## §2.7'));
  const text = [...sections, paragraph].join('\n');
  // Quoted text that contains a space: a title, not a quoted field value. Never across table cells; a
  // paragraph's title may wrap onto the next line.
  return [...text.matchAll(/"([^"|]*\s[^"|]*)"/g)].map((m) => m[1]!).filter((t) => !t.startsWith('§'));
}

describe('docs/conformance.md names real tests', () => {
  it('every quoted test title of the format, metadata and certificate rows matches a test', () => {
    const all = titles();
    const quoted = docTitles();
    assert.ok(quoted.length >= 30, `expected the tpm/android/MDS rows, found ${quoted.length} titles`);
    const missing = quoted.filter((t) => !all.some((title) => pattern(t).test(title)));
    assert.deepEqual(missing, []);
  });

  it('no case is left marked as later work', () => {
    const doc = readFileSync(join(repo, 'docs', 'conformance.md'), 'utf8');
    assert.doesNotMatch(doc, /issue #4/);
  });
});
