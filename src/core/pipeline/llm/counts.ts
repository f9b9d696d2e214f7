/**
 * Repair and discard counters of a run, keyed `<stage>:<reason>` (e.g. `scenarios:unknown-tool`,
 * `mock:offline-fallback`). They end up in the manifest's `counts.repaired` / `counts.discarded`.
 */

/** A reason → count map. */
export type Counts = Record<string, number>;

/** Adds `by` to `counts[key]` (nothing for zero). */
export function bump(counts: Counts, key: string, by = 1): void {
  if (by > 0) counts[key] = (counts[key] ?? 0) + by;
}

/** Adds every count of `from` into `into`. */
export function mergeCounts(into: Counts, from: Readonly<Counts> | undefined): void {
  if (!from) return;
  for (const [k, v] of Object.entries(from)) bump(into, k, v);
}

/** A copy with keys sorted, so manifests diff cleanly. */
export function sortedCounts(counts: Readonly<Counts>): Counts {
  return Object.fromEntries(
    Object.keys(counts)
      .sort()
      .map((k) => [k, counts[k] ?? 0]),
  );
}

/** What one LLM-backed step fixed and dropped. */
export interface StepCounts {
  repaired: Counts;
  discarded: Counts;
}

/** An empty {@link StepCounts}. */
export function emptyStepCounts(): StepCounts {
  return { repaired: {}, discarded: {} };
}
