// The end-of-life line: one line naming the version, only for a runtime past its end of life.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { endOfLifeWarning } from '../../src/util/node-support.js';

const DAY = Date.parse('2026-11-25T12:00:00Z');

describe('endOfLifeWarning', () => {
  it('names Node.js 20 past its end of life (2026-04-30), in one line', () => {
    const line = endOfLifeWarning('v20.20.2', DAY);
    assert.ok(line);
    assert.equal(line.includes('\n'), false);
    assert.match(line, /Node\.js v20\.20\.2 is past its end of life \(2026-04-30\)/);
    assert.match(line, /run Node\.js 24 \(supported: 22, 24, 26\)/);
  });

  it('says nothing for 22, 24 and 26, nor for 20 before its end of life', () => {
    for (const v of ['v22.12.0', 'v24.21.0', 'v26.10.0', 'v27.0.0']) assert.equal(endOfLifeWarning(v, DAY), null);
    assert.equal(endOfLifeWarning('v20.20.2', Date.parse('2026-04-30T18:00:00Z')), null);
    assert.ok(endOfLifeWarning('v20.20.2', Date.parse('2026-05-01T00:00:01Z')));
  });
});
