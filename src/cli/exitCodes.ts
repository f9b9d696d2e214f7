/**
 * Exit codes shared by every command (documented in docs/cli.md). `partial`: the command ended
 * but part of its LLM work failed or was not done by the model (see `runHealth.ts`). `empty`:
 * the command ended without an error but had nothing to show for it (a harness of 0 records
 * written, judged or reported), which CI must not take for a pass. `gate`: the command did its
 * work but a bar the user set (`--min-exact`, `--fail-on`, `--fail-on-regression`, …) was missed,
 * so CI can tell "the scores are below the bar" from "the command failed" (set in one place:
 * `gateExit` in ciOutputs.ts).
 */
export const EXIT = { ok: 0, failed: 1, badInput: 2, partial: 3, pending: 4, empty: 5, gate: 6 } as const;

/** The exit codes as the help and the README state them, one line each. */
export const EXIT_HELP = [
  'Exit codes: 0 success, 1 the run failed, 2 bad input, 3 partial (some LLM work failed),',
  '4 pending (batch jobs still running), 5 empty (nothing to show), 6 a gate missed its bar.',
].join('\n');
