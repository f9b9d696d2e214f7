/**
 * The one definition of the multi-turn (expansion) rate, used by the report and the CLI's
 * generation summary: scenarios expanded into a conversation over ALL scenarios, the paper's
 * base (its Section 5: "Multi-turn expansion succeeded for 54 scenarios (16.0% overall)", 54 of
 * its 337 scenarios). A rate over multi-call scenarios only (those stage 4 may split) would read
 * higher than the paper's for the same harness. No imports: the page bundle may take it.
 */

/** The paper's counts: 54 of its 337 scenarios became conversations (Table 6: 391 records). */
export const PAPER_EXPANSION = { multiTurn: 54, scenarios: 337 } as const;

/** The paper's multi-turn rate, 54 / 337 (16.0%). */
export const PAPER_EXPANSION_RATE = PAPER_EXPANSION.multiTurn / PAPER_EXPANSION.scenarios;

/** The multi-turn rate: multi-turn scenarios / all scenarios; null without scenarios. */
export function multiTurnRate(multiTurn: number, scenarios: number): number | null {
  return scenarios > 0 ? multiTurn / scenarios : null;
}

/** What the rate is over, said wherever it is shown. */
export const MULTI_TURN_BASE = "multi-turn scenarios of all scenarios, the paper's base (its 16% = 54 of 337 scenarios)";
