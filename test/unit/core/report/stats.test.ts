/**
 * The report's statistics against hand computations and reference values. Reference values
 * marked "scipy" were computed once with SciPy 1.17 (scipy.stats.pearsonr, spearmanr, t.sf,
 * scipy.special.betainc) and are pasted here, so the test needs no Python.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  averageRanks,
  blandAltman,
  bootstrapCi,
  gini,
  harmonicMean,
  logGamma,
  mae,
  median,
  minimum,
  pearson,
  quantileSorted,
  regularizedBeta,
  sd,
  seededRandom,
  spearman,
  tTestTwoSidedP,
  withinTolerance,
} from '../../../../src/core/report/stats';
import { mean } from '../../../../src/core/util/mean';

const close = (actual: number, expected: number, tol = 1e-9, what = '') =>
  assert.ok(Math.abs(actual - expected) <= tol, `${what} expected ${expected}, got ${actual}`);

test('mean, sample sd (n − 1), median and type-7 quantiles by hand', () => {
  // Σ = 4.3, mean 0.71666…; Σ(x − m)² = 0.508333…, / 5 = 0.1016666…, √ = 0.318852…
  const xs = [0.2, 0.5, 0.9, 1.0, 1.0, 0.7];
  close(mean(xs) ?? NaN, 4.3 / 6);
  close(sd(xs), Math.sqrt(0.5083333333333333 / 5), 1e-12, 'sd');
  close(sd(xs), 0.31885210782848317, 1e-12, 'sd (numpy ddof=1)');
  close(median(xs), 0.8, 1e-12);
  close(quantileSorted([1, 2, 3, 4], 0.25), 1.75); // h = 0.75 → 1 + 0.75·1
  close(quantileSorted([1, 2, 3, 4], 1), 4);
  // One mean for the judge and the report: the mean of nothing is null (it was NaN here and null in the judge).
  assert.equal(mean([]), null);
  assert.ok(Number.isNaN(sd([0.5])), 'sd of one value is undefined with n − 1');
  assert.equal(sd([0.5, 0.5]), 0);
});

test('harmonic mean and minimum (aggregation rules of Table 16)', () => {
  close(harmonicMean([1, 2, 4]), 3 / (1 + 0.5 + 0.25)); // 1.714285…
  close(harmonicMean([0.5, 0.5]), 0.5);
  assert.equal(harmonicMean([1, 0, 1]), 0, 'a zero dimension zeroes the harmonic mean');
  assert.ok(Number.isNaN(harmonicMean([])));
  assert.equal(minimum([0.9, 0.4, 1]), 0.4);
  assert.ok(Number.isNaN(minimum([])));
  assert.ok(Number.isNaN(minimum([0.4, NaN])), 'an undefined value is not skipped');
  // For any positive set: min ≤ harmonic ≤ arithmetic.
  const dims = [1, 0.8, 0.55, 0.9];
  assert.ok(minimum(dims) <= harmonicMean(dims) && harmonicMean(dims) <= (mean(dims) ?? NaN));
});

test('Gini by hand: Σ|xi − xj| / (2 n² μ)', () => {
  close(gini([1, 2, 3, 4]), 20 / (2 * 16 * 2.5)); // pairs' |diffs| sum to 20 → 0.25
  close(gini([0, 0, 0, 10]), 0.75);
  close(gini([1, 1, 2, 6]), 0.4);
  assert.equal(gini([5, 5, 5]), 0);
  assert.ok(Number.isNaN(gini([])));
  assert.ok(Number.isNaN(gini([0, 0])));
});

test('MAE, share within ±0.1 (with the floating-point edge) and Bland–Altman by hand', () => {
  const a = [0.9, 0.8, 1.0, 0.5];
  const b = [1.0, 0.7, 0.8, 0.5];
  // |d| = 0.1, 0.1, 0.2, 0 → MAE 0.1; within ±0.1: 3 of 4 (1.0 − 0.9 and 0.8 − 0.7 are not exactly 0.1).
  close(mae(a, b), 0.1, 1e-12);
  assert.equal(withinTolerance(a, b, 0.1), 0.75);
  const ba = blandAltman(a, b);
  // d = b − a = 0.1, −0.1, −0.2, 0 → mean −0.05; sd = √(((0.15)²+(0.05)²+(0.15)²+(0.05)²)/3) = √(0.05/3)
  close(ba.meanDiff, -0.05, 1e-12);
  close(ba.sdDiff, Math.sqrt(0.05 / 3), 1e-12);
  close(ba.lower, -0.05 - 1.96 * Math.sqrt(0.05 / 3), 1e-12);
  close(ba.upper, -0.05 + 1.96 * Math.sqrt(0.05 / 3), 1e-12);
  assert.equal(ba.n, 4);
  assert.ok(Number.isNaN(mae([1], [1, 2])));
});

test('log-gamma and the regularized incomplete beta match reference values', () => {
  close(logGamma(0.5), Math.log(Math.sqrt(Math.PI)), 1e-12);
  close(logGamma(10.3), 13.48203678613836, 1e-10, 'lgamma(10.3)');
  close(logGamma(5), Math.log(24), 1e-12);
  close(regularizedBeta(0.3, 2.5, 0.5), 0.018927124071945658, 1e-12, 'scipy betainc(2.5, 0.5, 0.3)');
  close(regularizedBeta(0.9, 10, 3), 0.889130022255, 1e-10, 'scipy betainc(10, 3, 0.9)');
  // I_x(1, 1) = x; I_x(a, b) = 1 − I_{1−x}(b, a).
  close(regularizedBeta(0.37, 1, 1), 0.37, 1e-12);
  close(regularizedBeta(0.2, 3, 7), 1 - regularizedBeta(0.8, 7, 3), 1e-12);
});

test('two-sided t p-values: table critical values and scipy', () => {
  close(tTestTwoSidedP(2.306004, 8), 0.05, 1e-6, 't(8) 97.5% point');
  close(tTestTwoSidedP(2.228139, 10), 0.05, 1e-6, 't(10) 97.5% point');
  close(tTestTwoSidedP(1, 1), 0.5, 1e-12, 'Cauchy: P(|T| ≥ 1) = 1/2');
  close(tTestTwoSidedP(3.5, 30), 0.0014768074376442532, 1e-12, 'scipy');
  close(tTestTwoSidedP(-0.5, 2.5), 0.6576979198697148, 1e-12, 'scipy, fractional df, sign ignored');
  assert.equal(tTestTwoSidedP(0, 5), 1);
});

test('Pearson r and p against scipy.stats.pearsonr', () => {
  const x = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  const y = [2, 1, 4, 3, 7, 8, 6, 9, 12, 10];
  const c = pearson(x, y);
  close(c.r, 0.9261797113999298, 1e-12, 'r');
  close(c.p, 0.00011876275128516728, 1e-12, 'p');
  assert.equal(c.n, 10);
  const c2 = pearson([0.9, 0.8, 1.0, 0.6, 0.7, 0.95, 0.85], [0.7, 0.9, 0.8, 0.5, 0.9, 0.6, 1.0]);
  close(c2.r, 0.1689117312332723, 1e-12, 'r2');
  close(c2.p, 0.717319678399255, 1e-10, 'p2');
  // Perfect negative relation, constant side, too few pairs.
  const neg = pearson([1, 2, 3], [6, 4, 2]);
  close(neg.r, -1, 1e-12);
  assert.equal(neg.p, 0);
  assert.ok(Number.isNaN(pearson([0.1, 0.1, 0.1], [1, 2, 3]).r), 'constant x (with rounding noise in the mean)');
  assert.ok(Number.isNaN(pearson([1, 2], [2, 1]).p), 'no p with two pairs');
});

test("the paper's tool-level p-values follow from its r and n (Section 5.2)", () => {
  // r = −0.29 over n = 222 tools is p ≈ 1.1e-5 (< 0.001); r = +0.16 is p ≈ 0.017 (paper: 0.016).
  const pOf = (r: number, n: number) => tTestTwoSidedP(r * Math.sqrt((n - 2) / (1 - r * r)), n - 2);
  close(pOf(-0.29, 222), 1.127037672303389e-5, 1e-12);
  close(pOf(0.16, 222), 0.01703834101108852, 1e-12);
});

test('Spearman with ties uses average ranks (scipy.stats.spearmanr)', () => {
  assert.deepEqual(averageRanks([1, 2, 2, 3, 4, 4, 4, 5]), [1, 2.5, 2.5, 4, 6, 6, 6, 8]);
  assert.deepEqual(averageRanks([3, 1, 2, 2, 5, 4, 6, 6]), [4, 1, 2.5, 2.5, 6, 5, 7.5, 7.5]);
  const s = spearman([1, 2, 2, 3, 4, 4, 4, 5], [3, 1, 2, 2, 5, 4, 6, 6]);
  close(s.r, 0.7889568540593018, 1e-12, 'rho with ties');
  close(s.p, 0.019936718107142443, 1e-12, 'p with ties');
  const noTies = spearman([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [2, 1, 4, 3, 7, 8, 6, 9, 12, 10]);
  // Without ties ρ = 1 − 6Σd²/(n(n²−1)) = 1 − 6·12/990.
  close(noTies.r, 1 - (6 * 12) / 990, 1e-12, 'rho');
  close(noTies.p, 0.00011203450639397586, 1e-12);
  // Monotone but non-linear: ρ = 1 where Pearson r < 1.
  close(spearman([1, 2, 3, 4], [1, 10, 100, 1000]).r, 1, 1e-12);
});

test('seeded PRNG is reproducible and roughly uniform', () => {
  const a = seededRandom(42);
  const b = seededRandom(42);
  const xs = Array.from({ length: 20_000 }, () => a());
  assert.deepEqual(
    xs.slice(0, 5),
    Array.from({ length: 5 }, () => b()),
  );
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  close(mean(xs) ?? NaN, 0.5, 0.01, 'mean of U(0,1)');
  assert.notEqual(seededRandom(43)(), seededRandom(42)());
});

test('percentile bootstrap CI: seeded, reproducible, and close to the normal approximation', () => {
  // A fixed sample of 200 scores (deterministic, skewed like TC scores).
  const r = seededRandom(7);
  const xs = Array.from({ length: 200 }, () => Math.min(1, 0.6 + 0.5 * r()));
  const ci1 = bootstrapCi(xs, { seed: 3 });
  const ci2 = bootstrapCi(xs, { seed: 3 });
  assert.deepEqual(ci1, ci2, 'same seed, same interval');
  const ci3 = bootstrapCi(xs, { seed: 4 });
  assert.notDeepEqual(ci1, ci3, 'another seed resamples differently');
  const m = mean(xs) ?? NaN;
  assert.ok(ci1[0] < m && m < ci1[1], 'the interval holds the mean');
  // With n = 200 the bootstrap interval is close to m ± 1.96·sd/√n.
  const half = (1.96 * sd(xs)) / Math.sqrt(xs.length);
  close(ci1[0], m - half, half * 0.1, 'lower');
  close(ci1[1], m + half, half * 0.1, 'upper');
  // A lower level gives a narrower interval; more resamples change it only a little.
  const ci80 = bootstrapCi(xs, { seed: 3, level: 0.8 });
  assert.ok(ci80[0] > ci1[0] && ci80[1] < ci1[1]);
  // A custom statistic (the median) runs through the general path.
  const ciMed = bootstrapCi(xs, { seed: 3, resamples: 500, statistic: median });
  assert.ok(ciMed[0] <= median(xs) && median(xs) <= ciMed[1]);
  // Degenerate samples.
  assert.deepEqual(bootstrapCi([0.7], { resamples: 50 }), [0.7, 0.7]);
  assert.deepEqual(bootstrapCi([1, 1, 1], { resamples: 50 }), [1, 1]);
  assert.ok(bootstrapCi([]).every(Number.isNaN));
});

test('edge cases: no data, one value, all ties, NaN are undefined (NaN), never a throw', () => {
  for (const c of [pearson([], []), pearson([0.5], [0.7]), spearman([1, 1, 1], [1, 2, 3]), spearman([0.2, 0.4, 0.9], [0.5, 0.5, 0.5])]) {
    assert.ok(Number.isNaN(c.r) && Number.isNaN(c.p), JSON.stringify(c));
  }
  assert.deepEqual(averageRanks([0.5, 0.5, 0.5]), [2, 2, 2], 'all ties share the middle rank');
  assert.ok(Number.isNaN(pearson([1, 2, 3], [1, 2]).r), 'unequal lengths');
  const one = blandAltman([0.5], [0.7]);
  close(one.meanDiff, 0.2, 1e-12);
  assert.ok(Number.isNaN(one.sdDiff) && Number.isNaN(one.lower) && Number.isNaN(one.upper), 'no limits from one pair');
  assert.ok(Number.isNaN(blandAltman([], []).meanDiff));
  assert.ok(Number.isNaN(median([])));
  assert.equal(gini([3]), 0);
  assert.ok(Number.isNaN(harmonicMean([0.5, NaN])));
  assert.ok(Number.isNaN(mae([], [])) && Number.isNaN(withinTolerance([], [], 0.1)));
});
