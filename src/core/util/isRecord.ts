/** The one plain-object guard. Import-free, so the report webview bundle may use it too. */

/** True for a plain object: not null, not an array (a JSON object, a schema node, a config map). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
