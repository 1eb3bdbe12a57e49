// Issue 37's measures (test/support/measures.ts; `node scripts/measures.mjs` prints them): each at its target,
// or, until it gets there, at most at its ceiling, which is only ever lowered. The stale file names are none.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measures } from './support/measures.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const all = measures(repo);

describe('the measures of one way to add an endpoint, a feature, an event', () => {
  for (const measure of all) {
    it(`${measure.name}: at most ${measure.ceiling ?? measure.target}`, () => {
      assert.ok(
        measure.value <= (measure.ceiling ?? measure.target),
        `${measure.value}\n${(measure.found ?? []).join('\n')}`,
      );
      if (measure.ceiling !== undefined)
        assert.ok(measure.value > measure.target, 'the target is reached: drop the ceiling');
    });
  }

  it('every file a comment or doc names exists', () => {
    const stale = all.find((m) => m.name.startsWith('stale file names'))!;
    assert.deepEqual(stale.found, []);
  });
});
