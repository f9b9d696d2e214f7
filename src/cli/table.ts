import type { Io } from './errors';
import { PLAIN, type Paint, type Tone } from './colour';
import { terminalSafe } from './format';

/** The width text and tables fit when stdout is not a terminal (a pipe, a file, a CI log). */
export const TEXT_WIDTH = 100;

/** The width a command's stdout fits: the terminal's columns, else {@link TEXT_WIDTH}. */
export function outputWidth(io: Pick<Io, 'columns'>): number {
  return io.columns !== undefined && io.columns > 0 ? io.columns : TEXT_WIDTH;
}

/** How a table is drawn: the width it fits, its palette, and the tone of a cell (a status word, say). */
export interface TableLook {
  width?: number;
  paint?: Paint;
  tone?: (column: number, cell: string) => Tone | undefined;
}

/** The look of a table printed on a command's stdout: its width and colours. */
export function tableLook(io: Io, tone?: TableLook['tone']): TableLook {
  return { width: outputWidth(io), paint: io.paint?.out ?? PLAIN, ...(tone ? { tone } : {}) };
}

/** The characters of a row's name (the first column) kept before the other columns are cut further. */
const NAME_FLOOR = 24;

/** A cell that is a path (no spaces, a separator): cut so that its file name stays. */
const PATH_LIKE = /^[^\s]*[/\\][^\s]*$/;

/**
 * `text` in at most `width` characters: cut in the middle with `…` (a path keeps its tail, the
 * file name, rather than its head).
 */
export function cutMiddle(text: string, width: number): string {
  if (text.length <= width) return text;
  if (width <= 1) return '…'.slice(0, width);
  const keep = width - 1;
  let tail = Math.floor(keep / 2);
  if (PATH_LIKE.test(text)) {
    const name = text.length - Math.max(text.lastIndexOf('/'), text.lastIndexOf('\\'));
    tail = Math.min(keep, Math.max(Math.ceil(keep / 2), name));
  }
  return `${text.slice(0, keep - tail)}…${text.slice(text.length - tail)}`;
}

/**
 * Plain-text tables for terminal output: columns padded, numbers right-aligned. A cell is one
 * line: a newline or control character in a name from a spec is shown escaped. The table fits
 * `look.width` (default {@link TEXT_WIDTH}): the widest columns shrink first, their long cells
 * cut in the middle; no column shrinks below its header (the first, the row's name, below 24
 * characters), and numbers are never cut.
 */
export function renderTable(headers: string[], rows: (string | number)[][], look: TableLook = {}): string {
  const paint = look.paint ?? PLAIN;
  const body = rows.map((r) => headers.map((_, i) => terminalSafe(String(r[i] ?? ''), { newlines: false })));
  const natural = headers.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? '').length)));
  const numeric = headers.map((_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number' || /^-?\d+(\.\d+)?$/.test(String(r[i]))));
  // The first column names the row: it keeps up to NAME_FLOOR characters before it is cut.
  const floor = headers.map((h, i) => (numeric[i] ? (natural[i] ?? 0) : i === 0 ? Math.max(h.length, Math.min(natural[i] ?? 0, NAME_FLOOR)) : h.length));
  const widths = fitWidths(natural, floor, look.width ?? TEXT_WIDTH);
  const line = (r: string[], style?: (col: number, padded: string, raw: string) => string) =>
    r
      .map((c, i) => {
        const w = widths[i] ?? 0;
        const cell = cutMiddle(c, w);
        const padded = numeric[i] ? cell.padStart(w) : cell.padEnd(w);
        // The last column is not padded: no trailing spaces (painted ones would survive trimEnd).
        const shown = i === r.length - 1 && !numeric[i] ? cell : padded;
        return style ? style(i, shown, c) : shown;
      })
      .join('  ')
      .trimEnd();
  return [
    line(headers, (_i, padded) => paint.bold(padded)),
    paint.dim(widths.map((w) => '-'.repeat(w)).join('  ')),
    ...body.map((r) => line(r, look.tone ? (i, shown, raw) => paint.tone(look.tone?.(i, raw), shown) : undefined)),
  ].join('\n');
}

/**
 * Column widths that fit `width` with two spaces between columns: the widest column loses a
 * character at a time until the table fits or every column is at its floor.
 */
function fitWidths(natural: readonly number[], floor: readonly number[], width: number): number[] {
  const widths = [...natural];
  const total = (): number => widths.reduce((a, b) => a + b, 0) + 2 * Math.max(0, widths.length - 1);
  let excess = total() - width;
  while (excess > 0) {
    let widest = -1;
    widths.forEach((w, i) => {
      if (w > (floor[i] ?? 0) && (widest < 0 || w > (widths[widest] ?? 0))) widest = i;
    });
    if (widest < 0) break;
    // Down to the next widest column (or the floor) in one step, at most the excess.
    const others = widths.filter((w, i) => i !== widest && w < (widths[widest] ?? 0));
    const next = Math.max(floor[widest] ?? 0, others.length ? Math.max(...others) : 0);
    // Columns tied for widest shrink in turn, a character each.
    const tied = widths.some((w, i) => i !== widest && w === widths[widest] && w > (floor[i] ?? 0));
    const cut = tied ? 1 : Math.max(1, Math.min(excess, (widths[widest] ?? 0) - next));
    widths[widest] = (widths[widest] ?? 0) - cut;
    excess -= cut;
  }
  return widths;
}

/**
 * A line of prose in lines of at most `width` characters, broken at spaces; the lines after the
 * first start with `indent` spaces. A word longer than a line is cut across lines.
 */
export function wrapLine(text: string, width: number, indent = 4): string[] {
  if (text.length <= width) return [text];
  const lead = /^\s*/.exec(text)?.[0] ?? '';
  const words = text.slice(lead.length).split(' ');
  const pad = ' '.repeat(Math.min(indent, Math.floor(width / 2)));
  const lines: string[] = [];
  let current = lead;
  const push = (): void => {
    lines.push(current.trimEnd());
    current = pad;
  };
  for (let word of words) {
    const sep = current.trim() === '' ? '' : ' ';
    if (current.length + sep.length + word.length <= width) {
      current += sep + word;
      continue;
    }
    if (current.trim() !== '') push();
    while (current.length + word.length > width) {
      const room = Math.max(1, width - current.length);
      current += word.slice(0, room);
      word = word.slice(room);
      push();
    }
    current += word;
  }
  if (current.trim() !== '') lines.push(current.trimEnd());
  return lines;
}
