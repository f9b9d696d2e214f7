/**
 * # The judge (`src/core/judge`)
 *
 * Scores harness records as the paper's Section 4 and Appendix E define: tool-calling (TC) per
 * turn over usage, selection, ordering and arguments (Table 18) with cascading penalties, and
 * coherence (Coh) over five sub-aspects (Table 19); plus everything a program can decide exactly.
 *
 * ```
 * judgeHarness(dir, {judges, spec, …})      judgeHarness.ts: every record × judge, skip current, write atomically
 *   └─ judgeRecord(record, spec, {llm?, mode, trajectory?})        judgeRecord.ts
 *        ├─ buildView          view.ts: turns of calls and replies (record, or an agent's trajectory)
 *        ├─ viewFacts          facts.ts: ajv facts per call, chained values, ungrounded IDs, oracle alignment
 *        ├─ LLM: prompts/judge-tc(-oracle).v1.txt → tcReplySchema(view), prompts/judge-coh.v1.txt → cohReplySchema(view)
 *        │       (StructuredLlm: valid replies cached, re-asked ≤ 3 times, then "not judged")
 *        ├─ reconcile.ts: drop findings outside their turn, coherence scores per Table 19, notes
 *        └─ scoreTcTurn / scoreCohTurn / aggregate   aggregate.ts (pure): waive chained values,
 *             exact facts win, cascades (cascade.ts), normalise, dimensions, turns, record
 * ```
 *
 * Stored under `record.judgments[<judge id>]` as a {@link StoredJudgment}: `tc`, `coh`,
 * `dimensions`, `subdimensions` (keys in `src/core/vocabulary.ts`), `notes`, plus per-turn details and
 * locatable `findings` (turn, call index, parameter, sub-dimension, score, reason) for inline
 * diagnostics.
 */
export * from './schemas';
export * from './facts';
export * from './cascade';
export * from './aggregate';
export * from './reconcile';
export * from './view';
export * from './render';
export * from './judgeRecord';
export * from './judgeHarness';
