/**
 * CI gates on a score: each bar that fails is one line saying which bar, the value, and by how
 * much it missed; a value that does not exist (no judgment, no run) fails the gate, so a CI job
 * that lost its inputs does not go green. Pure.
 */

/** A bar: the option that set it, what it measures, the minimum, and the value measured (null when none). */
export interface Gate {
  flag: string;
  what: string;
  min: number;
  value: number | null;
}

/** `--min-exact 0.95 failed: exact score 0.944 is 0.006 below the bar`; undefined when the gate passes. */
export function gateFailure(g: Gate): string | undefined {
  if (g.value === null) return `${g.flag} ${g.min} failed: no ${g.what} to compare (it cannot pass without one)`;
  if (g.value >= g.min) return undefined;
  return `${g.flag} ${g.min} failed: ${g.what} ${g.value.toFixed(3)} is ${(g.min - g.value).toFixed(3)} below the bar`;
}

/** The failure lines of some gates (those not set are left out by the caller). */
export function gateFailures(gates: readonly Gate[]): string[] {
  return gates.map(gateFailure).filter((l): l is string => l !== undefined);
}
