import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nestingDepth } from '../../src/http/body.js';

/** The plain character-by-character scan: inside a string each backslash takes the next character. */
function referenceDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === '[' || c === '{') {
      depth++;
      max = Math.max(max, depth);
    } else if (c === ']' || c === '}') {
      depth--;
    }
  }
  return max;
}

describe('nestingDepth', () => {
  it('counts brackets outside strings only, escaped quotes staying inside', () => {
    assert.equal(nestingDepth('{"a":[1,{"b":"[[["}]}'), 3);
    assert.equal(nestingDepth('["\\"[[", "\\\\", ["x"]]'), 2);
    assert.equal(nestingDepth('["\\\\\\"[", [[]]]'), 3);
    assert.equal(nestingDepth('"unterminated [[['), 0);
    assert.equal(nestingDepth(''), 0);
  });

  it('agrees with the character-by-character scan on any text, malformed included', () => {
    // A fixed-seed generator (xorshift32): the same 20,000 texts on every run.
    let seed = 0x2545f491;
    const next = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 0x1_0000_0000;
    };
    const alphabet = ['[', ']', '{', '}', '"', '\\', 'a', ','];
    for (let n = 0; n < 20_000; n++) {
      let text = '';
      const length = Math.floor(next() * 40);
      for (let i = 0; i < length; i++) text += alphabet[Math.floor(next() * alphabet.length)];
      assert.equal(nestingDepth(text), referenceDepth(text), JSON.stringify(text));
    }
  });
});
