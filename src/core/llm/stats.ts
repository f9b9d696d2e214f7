/**
 * Per-run accounting: requests, cache hits, retries by cause, re-asks, discards by reason,
 * tokens and an estimated cost. One `LlmStats` per run, shared by every `StructuredLlm` in it.
 */
import { BUILT_IN_PRICES, costOf, priceOf, type PriceTable } from './pricing';
import type { DiscardReason, Usage } from './types';

/** Why a transport-level retry happened. */
export type RetryCause = 'rate-limit' | 'server' | 'timeout' | 'network';

/** Counters for one model. */
export interface ModelStats {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  /** Undefined when the model is not in the price table (local models, new names). */
  costUsd: number | undefined;
}

/** A snapshot of a run's accounting. */
export interface LlmStatsSnapshot {
  /** `generate` calls finished (successes + discards, cached or not). */
  items: number;
  /** Items that produced a valid value. */
  succeeded: number;
  /** Items served from the disk cache (no request made). */
  cacheHits: number;
  /**
   * Model calls made, every attempt counted (retries and re-asks included); a reply the batch
   * engine hands out again from its journal is none, an item its job never ran is none.
   */
  requests: number;
  /** Transport retries by cause. */
  retries: Record<RetryCause, number>;
  /** Follow-up requests that carried validation errors back to the model. */
  reasks: number;
  /** Replies of unfinished items read back from the cache instead of asked again (a resumed conversation). */
  replayedReplies: number;
  /** Discarded items by reason (cached discards included: the item is still lost). */
  discards: Record<DiscardReason, number>;
  /** Billed tokens of requests made in this run. */
  inputTokens: number;
  outputTokens: number;
  /** Tokens that cache hits did not have to spend again. */
  savedInputTokens: number;
  savedOutputTokens: number;
  /** Estimated cost of this run's requests; `undefined` if any model used has no known price. */
  costUsd: number | undefined;
  /** Per-model breakdown. */
  byModel: Record<string, ModelStats>;
  /** Items per stage: done, cached, discarded. */
  byStage: Record<string, { items: number; cacheHits: number; discards: number }>;
}

/** Mutable per-run counters; read them with `snapshot()`. */
export class LlmStats {
  private readonly s: Omit<LlmStatsSnapshot, 'costUsd' | 'byModel'> = {
    items: 0,
    succeeded: 0,
    cacheHits: 0,
    requests: 0,
    retries: { 'rate-limit': 0, server: 0, timeout: 0, network: 0 },
    reasks: 0,
    replayedReplies: 0,
    discards: { 'invalid-json': 0, schema: 0, semantic: 0, http: 0, timeout: 0 },
    inputTokens: 0,
    outputTokens: 0,
    savedInputTokens: 0,
    savedOutputTokens: 0,
    byStage: {},
  };
  private readonly models = new Map<string, { requests: number; inputTokens: number; outputTokens: number }>();

  /** `prices`: the table costs are read from (synchronous prices; a batch run's real cost is priced by its caller). */
  constructor(private readonly prices: PriceTable = BUILT_IN_PRICES) {}

  private model(name: string): { requests: number; inputTokens: number; outputTokens: number } {
    let m = this.models.get(name);
    if (!m) this.models.set(name, (m = { requests: 0, inputTokens: 0, outputTokens: 0 }));
    return m;
  }

  private stage(name: string): { items: number; cacheHits: number; discards: number } {
    return (this.s.byStage[name] ??= { items: 0, cacheHits: 0, discards: 0 });
  }

  /** An attempt settled after `calls` model calls (0: answered from a reply kept from an earlier call). */
  recordRequest(model: string, calls = 1): void {
    this.s.requests += calls;
    this.model(model).requests += calls;
  }

  /** A reply arrived with this usage. */
  recordUsage(model: string, usage: Usage | undefined): void {
    if (!usage) return;
    this.s.inputTokens += usage.inputTokens;
    this.s.outputTokens += usage.outputTokens;
    const m = this.model(model);
    m.inputTokens += usage.inputTokens;
    m.outputTokens += usage.outputTokens;
  }

  /** A transport fault is being retried. */
  recordRetry(cause: RetryCause): void {
    this.s.retries[cause]++;
  }

  /** Validation errors are being sent back to the model. */
  recordReask(): void {
    this.s.reasks++;
  }

  /** A reply an earlier run got for an unfinished item was read from the cache. */
  recordReplayedReply(): void {
    this.s.replayedReplies++;
  }

  /** An item finished. */
  recordItem(stage: string, outcome: { ok: true } | { ok: false; reason: DiscardReason }, cached: boolean, usage?: Usage): void {
    this.s.items++;
    const st = this.stage(stage);
    st.items++;
    if (cached) {
      this.s.cacheHits++;
      st.cacheHits++;
      if (usage) {
        this.s.savedInputTokens += usage.inputTokens;
        this.s.savedOutputTokens += usage.outputTokens;
      }
    }
    if (outcome.ok) this.s.succeeded++;
    else {
      this.s.discards[outcome.reason]++;
      st.discards++;
    }
  }

  /** A copy of the counters with costs computed. */
  snapshot(): LlmStatsSnapshot {
    const byModel: Record<string, ModelStats> = {};
    let costUsd: number | undefined = 0;
    for (const [name, m] of this.models) {
      const spent = m.inputTokens + m.outputTokens > 0;
      const cost = !spent ? 0 : (costOf(m, priceOf(this.prices, name), 'sync') ?? undefined);
      byModel[name] = { ...m, costUsd: cost };
      costUsd = cost === undefined || costUsd === undefined ? undefined : costUsd + cost;
    }
    return structuredClone({ ...this.s, costUsd, byModel });
  }
}
