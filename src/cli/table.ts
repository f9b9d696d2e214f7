import { terminalSafe } from './format';

/**
 * Plain-text tables for terminal output: columns padded, numbers right-aligned. A cell is one
 * line: a newline or control character in a name from a spec is shown escaped.
 */
export function renderTable(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map((c) => terminalSafe(String(c), { newlines: false })))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const numeric = headers.map((_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number' || /^-?\d+(\.\d+)?$/.test(String(r[i]))));
  const line = (r: string[]) =>
    r
      .map((c, i) => (numeric[i] ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(cells[0] ?? []), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}
