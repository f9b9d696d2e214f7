/**
 * Exit codes shared by every command (documented in the README). `partial`: the command ended
 * but part of its LLM work failed or was not done by the model (see `runHealth.ts`).
 */
export const EXIT = { ok: 0, failed: 1, badInput: 2, partial: 3, pending: 4 } as const;

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
