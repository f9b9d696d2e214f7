/** The one arithmetic mean. Import-free, so the report webview bundle may use it too. */

/**
 * Arithmetic mean; `null` for no values, so an absent score can never pass for a number (the
 * judge stores null, and the report's JSON contract says null for "no data").
 */
export function mean(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}
