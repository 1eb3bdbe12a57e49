// The two-sample Kolmogorov–Smirnov test: do two samples come from one distribution? D is the largest
// distance between their empirical distribution functions; the p-value is the asymptotic one
// (Kolmogorov's distribution, with the small-sample correction of Stephens 1970 as in Numerical Recipes
// §14.3), good for samples of a few hundred and more.

export interface KsResult {
  readonly d: number;
  readonly p: number;
}

export function ksTwoSample(a: readonly number[], b: readonly number[]): KsResult {
  if (a.length === 0 || b.length === 0) throw new Error('both samples need values');
  const x = [...a].sort((u, v) => u - v);
  const y = [...b].sort((u, v) => u - v);
  let i = 0;
  let j = 0;
  let d = 0;
  while (i < x.length && j < y.length) {
    const value = Math.min(x[i]!, y[j]!);
    while (i < x.length && x[i]! <= value) i++;
    while (j < y.length && y[j]! <= value) j++;
    d = Math.max(d, Math.abs(i / x.length - j / y.length));
  }
  const ne = Math.sqrt((x.length * y.length) / (x.length + y.length));
  return { d, p: kolmogorovQ((ne + 0.12 + 0.11 / ne) * d) };
}

/** Q_KS(λ) = 2 Σ_{k≥1} (-1)^(k-1) exp(-2 k² λ²): the probability that D exceeds the one seen by chance. */
export function kolmogorovQ(lambda: number): number {
  if (lambda < 1e-3) return 1;
  let sum = 0;
  for (let k = 1; k <= 100; k++) {
    const term = 2 * (k % 2 === 1 ? 1 : -1) * Math.exp(-2 * k * k * lambda * lambda);
    sum += term;
    if (Math.abs(term) < 1e-12) break;
  }
  return Math.min(1, Math.max(0, sum));
}
