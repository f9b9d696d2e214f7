import { relative } from 'node:path';
import type { LoadProblem } from '../core/spec/model';

/** Paths as printed: relative to `cwd`, or as given when that is the folder itself. */
export function relativeTo(cwd: string): (file: string) => string {
  return (file) => relative(cwd, file) || file;
}

/** `file:line:col: message` — the one-line form every command prints for bad input. */
export function formatProblem(p: LoadProblem, rel: (f: string) => string = (f) => f): string {
  const where = p.line !== undefined ? `:${p.line}${p.column !== undefined ? `:${p.column}` : ''}` : '';
  return `${rel(p.file)}${where}: ${p.message}`;
}
