/**
 * Exit codes shared by every command (documented in docs/cli.md). `partial`: the command ended
 * but part of its LLM work failed or was not done by the model (see `runHealth.ts`). `empty`:
 * the command ended without an error but had nothing to show for it (a harness of 0 records
 * written, judged or reported), which CI must not take for a pass.
 */
export const EXIT = { ok: 0, failed: 1, badInput: 2, partial: 3, pending: 4, empty: 5 } as const;
