// The engines check of the tarball test (npm.ts `satisfies`) on the forms the installed packages write.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { satisfies } from './npm.js';

describe('packages: the engines ranges npm checks', () => {
  it('reads the forms packages write, as npm does', () => {
    const cases: [string, string, boolean][] = [
      ['22.0.0', '>=22', true],
      ['20.20.2', '>=22', false],
      ['22.0.0', '>= 20.19.0', true],
      ['20.18.0', '>= 20.19.0', false],
      ['24.0.0', '^18.19.0 || >=20.6.0', true],
      ['19.0.0', '^18.19.0 || >=20.6.0', false],
      ['18.20.0', '^18.19.0 || >=20.6.0', true],
      ['26.0.0', '20.x || 22.x || 23.x || 24.x || 25.x || 26.x', true],
      ['27.0.0', '20.x || 22.x || 23.x || 24.x || 25.x || 26.x', false],
      ['22.0.0', '^18 || ^20 || >= 21', true],
      ['22.0.0', '*', true],
      ['22.0.0', '>=10 <23', true],
      ['24.0.0', '>=10 <23', false],
      ['22.3.0', '~22.2.0', false],
      ['22.0.0', '>= 10.x', true],
      ['22.0.0', '>21', true],
      ['21.5.0', '>21', false],
    ];
    for (const [version, range, expected] of cases)
      assert.equal(satisfies(version, range), expected, `${version} ${range}`);
    assert.throws(() => satisfies('22.0.0', '=>22'), /not understood/);
  });
});
