import type { ContainmentError } from '../core/containment';
import type { FolderLockedError } from '../core/harness/lock';
import { OutputFolderError } from '../core/harness/outputFolder';
import { PLAIN, type Paint } from './colour';

// The exit codes live apart so the launcher (launch.ts) can use them without the rest of core.
import { EXIT } from './exitCodes';
export { EXIT };

/**
 * Exit codes from best to worst: bad input outranks a failure, which outranks batch jobs still
 * running (the corpus must be run again), which outranks an empty harness (no records: a
 * re-run will not change that, and every bar misses on nothing), which outranks a missed gate
 * (the work was done; its scores are below a bar), which outranks a partial result.
 */
const EXIT_SEVERITY: readonly number[] = [EXIT.ok, EXIT.partial, EXIT.gate, EXIT.empty, EXIT.pending, EXIT.failed, EXIT.badInput];

/** The worst of several exit codes (a corpus run's, over its specs'); 0 for none. */
export function worstExit(codes: readonly number[]): number {
  return codes.reduce((worst, c) => (EXIT_SEVERITY.indexOf(c) > EXIT_SEVERITY.indexOf(worst) ? c : worst), EXIT.ok as number);
}

/** Bad input: printed as one line (what and where), exit 2. Never shown with a stack. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Everything a command prints goes through these, so tests can capture it. */
export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Colours for what goes to stdout and stderr (colour.ts); absent: plain text (a pipe, a test). */
  paint?: { out: Paint; err: Paint };
  /** stdout's width in columns when it is a terminal; absent: tables and text fit 100. */
  columns?: number;
  /** One line redrawn in place on stderr, for progress (a terminal, not CI); absent: plain lines. */
  status?: StatusLine;
}

/** A line at the bottom of the terminal that is redrawn in place (processIo.ts). */
export interface StatusLine {
  /** Draws `text` over the line (cut to the terminal's width). */
  show(text: string): void;
  /** Removes the line, leaving the cursor at its start. */
  clear(): void;
  /** The terminal's width in columns. */
  readonly columns: number;
}

/** The palette of a command's stdout. */
export function outPaint(io: Io): Paint {
  return io.paint?.out ?? PLAIN;
}

/** The palette of a command's stderr. */
export function errPaint(io: Io): Paint {
  return io.paint?.err ?? PLAIN;
}

/** Why an output folder was not used, with the way out (--force) when there is one. */
export function refusalText(err: OutputFolderError | FolderLockedError | ContainmentError): string {
  if (!(err instanceof OutputFolderError)) return err.message;
  return `${err.message}${err.forcible === 'replace' ? ', or pass --force to replace it' : err.forcible === 'write' ? ', or pass --force to write here anyway' : ''}`;
}
