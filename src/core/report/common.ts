/** Small helpers the analysis and the agreement modules share. */
import { hash32 } from '../fnv';
import { mean } from '../util/mean';
import type { ScoreSummary } from './schema';
import { bootstrapCi, median, sd } from './stats';

/** Bootstrap settings of a report. */
export interface Bootstrap {
  resamples: number;
  seed: number;
  level: number;
}

/** NaN or null (an undefined statistic) → null, as the JSON contract wants. */
export const finite = (x: number | null): number | null => (x !== null && Number.isFinite(x) ? x : null);

/**
 * Seeded percentile-bootstrap CI of the mean of `xs`; null without data. The seed hashes the
 * report seed with `label`, so each interval has its own stream and adding a server moves no
 * other server's CI.
 */
export function labelledCi(xs: readonly number[], boot: Bootstrap, label: string): [number, number] | null {
  const c = bootstrapCi(xs, { resamples: boot.resamples, level: boot.level, seed: hash32(`${boot.seed}\u241f${label}`) });
  return Number.isFinite(c[0]) && Number.isFinite(c[1]) ? c : null;
}

const EPS = 1e-9;

/** Mean, seeded CI (see {@link labelledCi}), sd, median, perfect and below-0.5 shares of some scores. */
export function summarize(scores: readonly number[], boot: Bootstrap, label: string): ScoreSummary {
  const n = scores.length;
  return {
    n,
    mean: finite(mean(scores)),
    ci: labelledCi(scores, boot, label),
    sd: finite(sd(scores)),
    median: finite(median(scores)),
    perfect: n ? scores.filter((s) => s >= 1 - EPS).length / n : null,
    belowHalf: n ? scores.filter((s) => s < 0.5).length / n : null,
  };
}
