/** The one rounding of stored scores. Import-free. */

/** Rounds to 4 decimals: stored scores and shares stay stable across runs and readable in JSON. */
export function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}
