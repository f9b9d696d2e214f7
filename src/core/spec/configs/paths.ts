/** Path tests shared by the adapters. Paths are normalised once by `formatForPath`: `/`, lower case. */

/** Normalises a path for matching: forward slashes, lower case (config names are case-insensitive on the platforms that matter). */
export function normalisePath(path: string): string {
  return path.replace(/\\/g, '/').toLowerCase();
}

/** True when `path` is `tail` or ends with `/tail` (a config found at any depth of the workspace). */
export function endsWithPath(path: string, tail: string): boolean {
  return path === tail || path.endsWith(`/${tail}`);
}
