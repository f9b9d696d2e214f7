import { UsageError } from './errors';

/** A whole-number option (`--name N`), at least `min`; the fallback when absent. */
export function intOption(name: string, raw: string | undefined, fallback: number | undefined, min: number): number | undefined {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} takes a whole number ≥ ${min}, got "${raw}"`);
  return n;
}

/** Milliseconds between progress lines on stderr. */
export const PROGRESS_EVERY_MS = 1000;
