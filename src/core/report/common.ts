/** Small helpers the analysis and the agreement modules share. */
import { hash32 } from '../fnv';
import { bootstrapCi } from './stats';

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
