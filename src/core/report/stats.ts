/**
 * The one statistics module of the report: every number in a report comes from a function here,
 * so each can be checked against hand computations (test/unit/stats.test.ts).
 *
 * Conventions:
 * - Functions take plain arrays of finite numbers; callers drop missing scores first.
 * - An undefined result (sd of one value, r of a constant) is `NaN`, never a throw: reports of
 *   tiny or half-judged harnesses must still render. The report layer turns `NaN` into `null`
 *   for JSON. The mean of nothing is `null` (`util/mean.ts`, shared with the judge).
 * - No dependency: the t-distribution p-values use a regularized incomplete beta implemented
 *   here (continued fraction, Numerical Recipes §6.4), because no small, maintained npm package
 *   is worth a dependency for two functions.
 */
import { mean } from '../util/mean';

/**
 * Sample standard deviation (divisor n − 1, as R's `sd`, pandas' `std` and the paper's σ);
 * NaN for fewer than two values.
 */
export function sd(xs: readonly number[]): number {
  if (xs.length < 2) return NaN;
  const m = mean(xs) ?? NaN;
  let ss = 0;
  for (const x of xs) ss += (x - m) ** 2;
  return Math.sqrt(ss / (xs.length - 1));
}

/**
 * Quantile by linear interpolation between order statistics (R type 7, NumPy's default).
 * `sorted` must be ascending. NaN for an empty array.
 */
export function quantileSorted(sorted: readonly number[], q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const h = (n - 1) * Math.min(1, Math.max(0, q));
  const lo = Math.floor(h);
  const a = sorted[lo] as number;
  const b = sorted[Math.min(lo + 1, n - 1)] as number;
  return a + (h - lo) * (b - a);
}

/** Median (type-7 quantile at 0.5). */
export function median(xs: readonly number[]): number {
  return quantileSorted(
    [...xs].sort((a, b) => a - b),
    0.5,
  );
}

/** Harmonic mean of non-negative values; 0 when any value is 0 (its limit); NaN if empty or any is negative. */
export function harmonicMean(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  let s = 0;
  for (const x of xs) {
    if (x < 0) return NaN;
    if (x === 0) return 0;
    s += 1 / x;
  }
  return xs.length / s;
}

/** Smallest value; NaN for an empty array or when any value is NaN (as `Math.min`, without spreading a long array). */
export function minimum(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  let m = Infinity;
  for (const x of xs) {
    if (Number.isNaN(x)) return NaN;
    if (x < m) m = x;
  }
  return m;
}

/**
 * Gini coefficient of non-negative amounts (e.g. calls per tool): 0 when all are equal, towards
 * 1 when one holds everything. Mean absolute difference over twice the mean, without the
 * small-sample n/(n−1) correction. NaN for an empty array or a zero total.
 */
export function gini(xs: readonly number[]): number {
  const n = xs.length;
  if (n === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  let total = 0;
  let weighted = 0;
  sorted.forEach((x, i) => {
    total += x;
    weighted += (i + 1) * x;
  });
  if (total <= 0) return NaN;
  // Σ_i Σ_j |x_i − x_j| / (2 n² μ) in its sorted O(n log n) form.
  return (2 * weighted) / (n * total) - (n + 1) / n;
}

/** Mean absolute error between paired values; NaN when empty or lengths differ. */
export function mae(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length || a.length === 0) return NaN;
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.abs((b[i] as number) - (a[i] as number));
  return s / a.length;
}

/**
 * Share of pairs with |b − a| ≤ tolerance. A tiny epsilon keeps 0.9 vs 1.0 inside ±0.1 despite
 * floating point (1.0 − 0.9 = 0.09999999999999998 but 0.8 − 0.7 = 0.10000000000000009).
 */
export function withinTolerance(a: readonly number[], b: readonly number[], tolerance: number): number {
  if (a.length !== b.length || a.length === 0) return NaN;
  let k = 0;
  for (let i = 0; i < a.length; i++) if (Math.abs((b[i] as number) - (a[i] as number)) <= tolerance + 1e-9) k++;
  return k / a.length;
}

/**
 * A small seeded PRNG (mulberry32): uniform in [0, 1). Bootstrap CIs must be reproducible, so
 * they never use `Math.random`.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Options of {@link bootstrapCi}. */
export interface BootstrapOptions {
  /** Resamples (default 10,000, as in the paper's Table 3). */
  resamples?: number;
  /** PRNG seed (default 1): the same seed and data give the same interval. */
  seed?: number;
  /** Confidence level (default 0.95). */
  level?: number;
  /** Statistic of a resample (default the mean). */
  statistic?: (xs: readonly number[]) => number;
}

/** Default bootstrap resamples (the paper's B = 10,000). */
export const DEFAULT_RESAMPLES = 10_000;

/**
 * Percentile bootstrap confidence interval: resample with replacement `resamples` times, take
 * the statistic of each, and return its (1−level)/2 and (1+level)/2 type-7 quantiles.
 * `[NaN, NaN]` for an empty sample; a single value gives `[x, x]`.
 */
export function bootstrapCi(xs: readonly number[], options: BootstrapOptions = {}): [number, number] {
  const n = xs.length;
  if (n === 0) return [NaN, NaN];
  const resamples = Math.max(1, Math.trunc(options.resamples ?? DEFAULT_RESAMPLES));
  const level = options.level ?? 0.95;
  const statistic = options.statistic;
  const rand = seededRandom(options.seed ?? 1);
  const stats = new Float64Array(resamples);
  const sample = new Array<number>(n);
  for (let b = 0; b < resamples; b++) {
    if (statistic) {
      for (let i = 0; i < n; i++) sample[i] = xs[Math.floor(rand() * n)] as number;
      stats[b] = statistic(sample);
    } else {
      // The mean is by far the common case: skip building the resample array.
      let s = 0;
      for (let i = 0; i < n; i++) s += xs[Math.floor(rand() * n)] as number;
      stats[b] = s / n;
    }
  }
  stats.sort();
  const sorted = Array.from(stats);
  return [quantileSorted(sorted, (1 - level) / 2), quantileSorted(sorted, (1 + level) / 2)];
}

/** Natural log of the gamma function (Lanczos approximation, g = 7, n = 9; ~15 significant digits). */
export function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
    9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  const z = x - 1;
  let a = c[0] as number;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += (c[i] as number) / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Continued fraction of the incomplete beta (modified Lentz). */
function betaContinuedFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) break;
  }
  return h;
}

/** Regularized incomplete beta function I_x(a, b) for a, b > 0 and 0 ≤ x ≤ 1. */
export function regularizedBeta(x: number, a: number, b: number): number {
  if (!(a > 0 && b > 0) || Number.isNaN(x)) return NaN;
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  // The fraction converges fast only on this side of the mean; use the symmetry otherwise.
  return x < (a + 1) / (a + b + 2) ? (front * betaContinuedFraction(x, a, b)) / a : 1 - (front * betaContinuedFraction(1 - x, b, a)) / b;
}

/** Two-sided p-value of a Student t statistic with `df` degrees of freedom: P(|T| ≥ |t|). */
export function tTestTwoSidedP(t: number, df: number): number {
  if (!(df > 0) || Number.isNaN(t)) return NaN;
  if (!Number.isFinite(t)) return 0;
  return regularizedBeta(df / (df + t * t), df / 2, 0.5);
}

/** A correlation coefficient with its two-sided p-value and the number of pairs. */
export interface Correlation {
  /** The coefficient; NaN with fewer than 2 pairs or when either side is constant. */
  r: number;
  /** Two-sided p-value of H0: no correlation (t test with n − 2 df); NaN with fewer than 3 pairs. */
  p: number;
  n: number;
}

/** p-value of a correlation coefficient through t = r·√((n−2)/(1−r²)), df = n − 2 (as scipy.stats.pearsonr/spearmanr). */
function correlationP(r: number, n: number): number {
  if (n < 3 || Number.isNaN(r)) return NaN;
  if (Math.abs(r) >= 1) return 0;
  const df = n - 2;
  return tTestTwoSidedP(r * Math.sqrt(df / (1 - r * r)), df);
}

/** Pearson product-moment correlation with a two-sided p-value. Pairs are (x[i], y[i]). */
export function pearson(x: readonly number[], y: readonly number[]): Correlation {
  const n = Math.min(x.length, y.length);
  if (x.length !== y.length || n < 2) return { r: NaN, p: NaN, n };
  const mx = mean(x) ?? NaN;
  const my = mean(y) ?? NaN;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = (x[i] as number) - mx;
    const dy = (y[i] as number) - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  // Relative test: sums of squares of "constant" data carry rounding noise, not variance.
  const negligible = (ss: number, m: number) => ss <= 1e-24 * n * Math.max(1, m * m);
  if (negligible(sxx, mx) || negligible(syy, my)) return { r: NaN, p: NaN, n };
  const r = Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy)));
  return { r, p: correlationP(r, n), n };
}

/** Ranks 1..n with ties given the average of the ranks they span (fractional ranking). */
export function averageRanks(xs: readonly number[]): number[] {
  const order = xs.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
  const ranks = new Array<number>(xs.length);
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j + 1 < order.length && (order[j + 1] as readonly [number, number])[0] === (order[i] as readonly [number, number])[0]) j++;
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) ranks[(order[k] as readonly [number, number])[1]] = rank;
    i = j + 1;
  }
  return ranks;
}

/**
 * Spearman rank correlation: Pearson r of average ranks (correct with ties), p-value by the same
 * t approximation as scipy.stats.spearmanr.
 */
export function spearman(x: readonly number[], y: readonly number[]): Correlation {
  if (x.length !== y.length) return { r: NaN, p: NaN, n: Math.min(x.length, y.length) };
  return pearson(averageRanks(x), averageRanks(y));
}

/** Bland–Altman agreement of paired measurements, differences taken as b − a. */
export interface BlandAltman {
  n: number;
  /** Mean of b − a (the bias). */
  meanDiff: number;
  /** Sample sd of b − a. */
  sdDiff: number;
  /** Limits of agreement: meanDiff ∓ 1.96·sdDiff. */
  lower: number;
  upper: number;
}

/** Bland–Altman bias and 95% limits of agreement (mean difference ± 1.96 sd of the differences). */
export function blandAltman(a: readonly number[], b: readonly number[]): BlandAltman {
  if (a.length !== b.length) return { n: 0, meanDiff: NaN, sdDiff: NaN, lower: NaN, upper: NaN };
  const d = a.map((x, i) => (b[i] as number) - x);
  const m = mean(d) ?? NaN;
  const s = sd(d);
  return { n: d.length, meanDiff: m, sdDiff: s, lower: m - 1.96 * s, upper: m + 1.96 * s };
}
