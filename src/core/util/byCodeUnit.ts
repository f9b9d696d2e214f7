/** The one string order for output that must not depend on the machine. Import-free. */

/**
 * Compares strings by UTF-16 code unit, the order `Array.prototype.sort` uses by default. Unlike
 * `localeCompare` it is the same on every machine and locale, so sorted output is reproducible.
 */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
