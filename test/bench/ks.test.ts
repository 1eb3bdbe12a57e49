// The two-sample Kolmogorov–Smirnov test of bench/lib/ks.ts (the enumeration bench's verdict): the
// statistic and the asymptotic p-value on samples whose answer is known.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { kolmogorovQ, ksTwoSample } from '../../bench/lib/ks.js';

describe('two-sample Kolmogorov–Smirnov (bench/lib/ks.ts)', () => {
  it('one sample against itself: D = 0, p = 1', () => {
    const a = Array.from({ length: 500 }, (_, i) => (i * 7919) % 1000);
    assert.deepEqual(ksTwoSample(a, [...a].reverse()), { d: 0, p: 1 });
  });

  it('disjoint samples: D = 1 and a p-value near 0', () => {
    const { d, p } = ksTwoSample(
      Array.from({ length: 200 }, (_, i) => i),
      Array.from({ length: 200 }, (_, i) => 1000 + i),
    );
    assert.equal(d, 1);
    assert.ok(p < 1e-30, String(p));
  });

  it('D is the largest gap of the two empirical distributions, ties counted on both sides', () => {
    // F_a steps at 1,2,3,4; F_b at 3,4,5,6: after 2, F_a = 0.5 and F_b = 0; the gap is largest (0.5) at 2..4.
    assert.equal(ksTwoSample([1, 2, 3, 4], [3, 4, 5, 6]).d, 0.5);
    assert.equal(ksTwoSample([1, 1, 2], [1, 2, 2]).d, 1 / 3);
  });

  it("Kolmogorov's distribution at its tabulated points: Q(1.358) ≈ 0.05, Q(1.628) ≈ 0.01", () => {
    assert.ok(Math.abs(kolmogorovQ(1.358) - 0.05) < 0.001);
    assert.ok(Math.abs(kolmogorovQ(1.628) - 0.01) < 0.0005);
    assert.equal(kolmogorovQ(0), 1);
  });
});
