import type { ContainmentError } from '../core/containment';
import type { FolderLockedError } from '../core/harness/lock';
import { OutputFolderError } from '../core/harness/outputFolder';

// The exit codes live apart so the launcher (launch.ts) can use them without the rest of core.
import { EXIT } from './exitCodes';
export { EXIT };

/**
 * Exit codes from best to worst: bad input outranks a failure, which outranks batch jobs still
 * running (the corpus must be run again), which outranks an empty harness (no records: a
 * re-run will not change that), which outranks a partial result.
 */
const EXIT_SEVERITY: readonly number[] = [EXIT.ok, EXIT.partial, EXIT.empty, EXIT.pending, EXIT.failed, EXIT.badInput];

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
}

/** Why an output folder was not used, with the way out (--force) when there is one. */
export function refusalText(err: OutputFolderError | FolderLockedError | ContainmentError): string {
  if (!(err instanceof OutputFolderError)) return err.message;
  return `${err.message}${err.forcible === 'replace' ? ', or pass --force to replace it' : err.forcible === 'write' ? ', or pass --force to write here anyway' : ''}`;
}
