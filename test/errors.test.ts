// docs/errors.md and the catalogue (src/errors/catalogue.ts) must list the same names with the same HTTP statuses.
// On a failure here: run `node scripts/gen-errors-doc.mjs` and commit docs/errors.md.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERRORS, FidoError, isErrorName, type ErrorName } from '../src/errors/catalogue.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const doc = readFileSync(resolve(repo, 'docs', 'errors.md'), 'utf8');

/** Every table row `| \`NAME\` | 400 | … |` of the doc, in order. */
function documented(): { name: string; status: number }[] {
  return [...doc.matchAll(/^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|\s*(\d{3})\s*\|/gm)].map((m) => ({
    name: m[1]!,
    status: Number(m[2]),
  }));
}

describe('docs/errors.md ↔ src/errors/catalogue.ts', () => {
  const rows = documented();
  const catalogue = Object.entries(ERRORS).map(([name, spec]) => ({ name, status: spec.status }));

  it("the doc has a table row for every catalogue name, with the catalogue's HTTP status", () => {
    const inDoc = new Map(rows.map((r) => [r.name, r.status]));
    const missing = catalogue.filter((e) => !inDoc.has(e.name)).map((e) => e.name);
    const wrongStatus = catalogue
      .filter((e) => inDoc.has(e.name) && inDoc.get(e.name) !== e.status)
      .map((e) => `${e.name}: doc ${inDoc.get(e.name)}, code ${e.status}`);
    assert.deepEqual(missing, [], 'names missing from docs/errors.md (run node scripts/gen-errors-doc.mjs)');
    assert.deepEqual(wrongStatus, [], 'statuses that differ');
  });

  it('the doc lists no name the catalogue does not have, and none twice', () => {
    const extra = rows.filter((r) => !isErrorName(r.name)).map((r) => r.name);
    assert.deepEqual(extra, [], 'names in docs/errors.md that src/errors/catalogue.ts does not define');
    const seen = new Set<string>();
    const twice = rows.filter((r) => (seen.has(r.name) ? true : (seen.add(r.name), false))).map((r) => r.name);
    assert.deepEqual(twice, []);
    assert.equal(rows.length, catalogue.length);
  });

  it('every catalogue entry is UPPER_SNAKE with a 4xx/5xx status and a non-empty text', () => {
    for (const [name, spec] of Object.entries(ERRORS)) {
      assert.match(name, /^[A-Z][A-Z0-9_]*$/);
      assert.ok(spec.status >= 400 && spec.status <= 599, name);
      assert.ok(spec.message.length > 0, name);
    }
  });

  it('FidoError carries its name and the catalogue status', () => {
    for (const name of Object.keys(ERRORS) as ErrorName[]) {
      const error = new FidoError(name, 'detail');
      assert.equal(error.code, name);
      assert.equal(error.status, ERRORS[name].status);
    }
  });
});
