/**
 * # The LLM-backed pipeline stages (`src/core/pipeline/llm`)
 *
 * ```
 * interpretTool        interpret.ts   stage 1, one call per tool, cached by tool hash
 * generateScenarios    scenarios.ts   stage 2: groups (grouping.ts) → simple/complex batches,
 *                                     cross-group batches, coverage follow-ups; tiers by structure
 * stateValues          statedValues.ts after stage 2: a request that leaves argument values unsaid is
 *                                     rewritten as text around one-value enum slots the code fills
 * mockScenario         mock.ts        stage 3: outputs with the workflow's shared state,
 *                                     integrity re-ask → plant → offline fallback
 * expandTurns          turns.ts       stage 4: grounded or standard split, single turns dropped
 * ask                  ask.ts         request + deterministic checks → re-ask → salvage, counted;
 *                                     the ledger (ledger.ts) replays counts and salvages from cache
 * ```
 * The runner (`../runner.ts`) wires them into a streaming run: a scenario goes to the mock stage
 * the moment its batch is accepted, and a record is written the moment its last stage is done.
 */
export * from './ask';
export * from './context';
export * from './counts';
export * from './grouping';
export * from './interpret';
export * from './ledger';
export * from './mock';
export * from './scenarios';
export * from './statedValues';
export * from './summaries';
export * from './turns';
