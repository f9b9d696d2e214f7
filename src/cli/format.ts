import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { LoadProblem } from '../core/spec/model';

/**
 * A path as every command prints it: inside the current folder, relative to it (`x/y.json`, and
 * `.` for the folder itself); outside it, absolute (never a climb of `../../..` that the reader
 * must count). Paths given relative are resolved against `cwd` first.
 */
export function shownPath(cwd: string, file: string): string {
  const rel = relative(cwd, file);
  if (rel === '') return '.';
  // Another drive (Windows) gives an absolute path back; `..x` is a name inside, `..` and `../x` are outside.
  if (isAbsolute(rel) || rel === '..' || rel.startsWith(`..${sep}`)) return resolve(cwd, file);
  return rel;
}

/** {@link shownPath} for one folder, as a function to pass around. */
export function relativeTo(cwd: string): (file: string) => string {
  return (file) => shownPath(cwd, file);
}

/** `file:line:col: message` — the one-line form every command prints for bad input. */
export function formatProblem(p: LoadProblem, rel: (f: string) => string = (f) => f): string {
  const where = p.line !== undefined ? `:${p.line}${p.column !== undefined ? `:${p.column}` : ''}` : '';
  return `${rel(p.file)}${where}: ${p.message}`;
}

/**
 * C0 controls but tab and newline, DEL, and C1 controls (U+0080–U+009F: 0x9B is a one-byte CSI);
 * and the invisible characters that reorder or hide text: the bidi marks, embeddings, overrides
 * and isolates (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069: a right-to-left override in a
 * tool name makes the rest of the line read backwards), zero-width space and word joiner
 * (U+200B, U+2060), the line and paragraph separators (U+2028–U+2029) and the BOM (U+FEFF).
 * Zero-width joiners (U+200C–U+200D) are kept: emoji and some scripts need them.
 */
// eslint-disable-next-line no-control-regex -- control characters are what this escapes
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u2028-\u202e\u2060\u2066-\u2069\ufeff]/g;
// eslint-disable-next-line no-control-regex -- control characters are what this escapes
const CONTROL_OR_NEWLINE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u2028-\u202e\u2060\u2066-\u2069\ufeff]/g;

/**
 * Text fit for a terminal: control characters that could drive it (ESC sequences that set the
 * title, clear the screen, rewrite earlier lines; BEL; CR) are shown as `\u001b`-style escapes.
 * The `\uXXXX` form is also a JSON string escape, so JSON output passed through here stays
 * valid JSON with the same values. Tabs and the newlines that separate lines are kept unless
 * `newlines` is false (for a single table cell or field).
 */
export function terminalSafe(text: string, options: { newlines?: boolean } = {}): string {
  const pattern = options.newlines === false ? CONTROL_OR_NEWLINE : CONTROL;
  return text.replace(pattern, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
