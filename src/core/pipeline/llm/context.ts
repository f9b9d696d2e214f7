/**
 * What every LLM stage of one run shares: the spec, the model, the prompts, the ledger, the
 * cancellation signal and the run's counters.
 */
import type { DiscardReason, StructuredLlm } from '../../llm';
import type { Spec } from '../../spec/model';
import type { GenerationFallback } from '../../workspace/defaults';
import type { PromptLibrary } from '../../llm/prompts';

import { bump, mergeCounts, type Counts, type StepCounts } from './counts';
import type { Ledger } from './ledger';
import { tallyItem, type ItemOutcome, type ItemTally } from '../runHealth';

/** Stage names, as they appear in cache keys, counters and progress. */
export const STAGES = { interpret: 'interpret', scenarios: 'scenarios', mock: 'mock', turns: 'turns' } as const;

/**
 * Which waiting request gets a free slot first (`ChatRequest.priority`). A request that opens new
 * work (a tool's interpretation, a batch of scenarios, a coverage round, a top-up) goes before
 * the ones that make the records in flight (restatement, mock, turns); those keep their order,
 * so records are finished, and written, in the order they were started. Without it a late
 * group's batch waits behind every record queued before it, and the run's last chain of calls
 * starts late (issue 25: concurrency 16 against 4). Longest-chain-first among the record steps
 * too (restatement before mock before turns) was tried and dropped: a record is written when
 * its last step returns, so with the last step last in line most records stay unwritten until
 * late in the run, which a cancelled or quota-stopped run pays for.
 */
export const PRIORITY = { interpret: 1, scenarios: 1, restate: 0, mock: 0, turns: 0 } as const;

/** The shared state of an LLM run. */
export interface StageContext {
  spec: Spec;
  llm: StructuredLlm;
  prompts: PromptLibrary;
  ledger: Ledger;
  signal: AbortSignal;
  /** Run seed: selects the sample of stage-2 calls (a new seed asks for new scenarios). */
  seed: number;
  /** Repairs by `<stage>:<reason>`. */
  repaired: Counts;
  /** Discards by `<stage>:<reason>`. */
  discarded: Counts;
  /** Example outputs per tool name (the paper's optional traces), for mock grounding. */
  examples: ReadonlyMap<string, readonly unknown[]>;
  /** Outcomes of this run's steps by request key (see `AskContext.steps`). */
  steps: Map<string, Promise<AskOutcome<unknown>>>;
  /** How each LLM item ended (the run's verdict reads it). */
  items: ItemTally;
  /** Whether an item the model could not make is filled by the offline generator (`offline`) or discarded. */
  fallback: GenerationFallback;
}

import { isTransportFailure, type AskOutcome } from './ask';
export { isTransportFailure };

/**
 * Counts how an item ended: a transport failure as `failed` under `<stage>:<reason>`, a content
 * discard as `fallback` (`offline` when the stage fills it offline, else `discarded`).
 */
export function settle(
  ctx: StageContext,
  stage: string,
  outcome: { ok: true } | { ok: false; reason: DiscardReason },
  fallback: Exclude<ItemOutcome, 'llm' | 'failed'>,
): void {
  if (outcome.ok) tallyItem(ctx.items, 'llm');
  else if (isTransportFailure(outcome.reason)) tallyItem(ctx.items, 'failed', `${stage}:${outcome.reason}`);
  else tallyItem(ctx.items, fallback);
}

/** Adds a step's counts to the run's. */
export function count(ctx: StageContext, counts: StepCounts): void {
  mergeCounts(ctx.repaired, counts.repaired);
  mergeCounts(ctx.discarded, counts.discarded);
}

/** Counts one repair. */
export function repaired(ctx: StageContext, key: string, by = 1): void {
  bump(ctx.repaired, key, by);
}

/** Counts one discard. */
export function discarded(ctx: StageContext, key: string, by = 1): void {
  bump(ctx.discarded, key, by);
}
