/**
 * A run's progress: the counters per stage that front ends display, the wall-clock span of each
 * stage for the manifest's timings, and the LLM accounting over this run (differences of the
 * client's cumulative stats).
 */
import type { LlmStatsSnapshot } from '../llm';

/** Stages reported in progress. */
export type PipelineStage = 'interpret' | 'scenarios' | 'mock' | 'turns' | 'write';

/** Run accounting of the LLM (differences over this run). */
export interface PipelineLlmCounts {
  /** HTTP requests sent (retries and re-asks included; cache hits excluded). */
  calls: number;
  /** Items served from the disk cache. */
  cacheHits: number;
  /** Transport retries (429, 5xx, timeouts, network). */
  retries: number;
  /** Replies sent back with validation errors. */
  reasks: number;
  inputTokens: number;
  outputTokens: number;
  /** Estimated cost in USD; undefined when a model has no known price. */
  costUsd: number | undefined;
}

/** A progress report (sent on every change; throttle it for display). */
export interface PipelineProgress {
  /** The stage whose counters just moved. */
  stage: PipelineStage;
  /** Done and known total per stage (totals grow as scenarios are accepted). */
  stages: Record<PipelineStage, { done: number; total: number }>;
  /** Records written so far. */
  records: number;
  llm: PipelineLlmCounts;
}

/** The accounting of a run that made no LLM call (offline). */
export const ZERO_LLM: PipelineLlmCounts = { calls: 0, cacheHits: 0, retries: 0, reasks: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };

/** What the LLM did between two snapshots of its stats. */
export function llmDiff(a: LlmStatsSnapshot, b: LlmStatsSnapshot): PipelineLlmCounts {
  const retries = (s: LlmStatsSnapshot): number => Object.values(s.retries).reduce((x, y) => x + y, 0);
  return {
    calls: b.requests - a.requests,
    cacheHits: b.cacheHits - a.cacheHits,
    retries: retries(b) - retries(a),
    reasks: b.reasks - a.reasks,
    inputTokens: b.inputTokens - a.inputTokens,
    outputTokens: b.outputTokens - a.outputTokens,
    costUsd: a.costUsd === undefined || b.costUsd === undefined ? undefined : Math.max(0, b.costUsd - a.costUsd),
  };
}

/** Progress counters with per-stage wall-clock spans. */
export class Progress {
  readonly stages: Record<PipelineStage, { done: number; total: number }> = {
    interpret: { done: 0, total: 0 },
    scenarios: { done: 0, total: 0 },
    mock: { done: 0, total: 0 },
    turns: { done: 0, total: 0 },
    write: { done: 0, total: 0 },
  };
  private readonly spans = new Map<PipelineStage, { start: number; end: number }>();
  records = 0;

  constructor(
    private readonly now: () => number,
    private readonly llm: () => PipelineLlmCounts,
    private readonly sink: ((p: PipelineProgress) => void) | undefined,
  ) {}

  private touch(stage: PipelineStage): void {
    const t = this.now();
    const span = this.spans.get(stage);
    if (span) span.end = t;
    else this.spans.set(stage, { start: t, end: t });
  }

  add(stage: PipelineStage, n = 1): void {
    this.stages[stage].total += n;
    this.touch(stage);
    this.emit(stage);
  }

  done(stage: PipelineStage): void {
    this.stages[stage].done++;
    this.touch(stage);
    this.emit(stage);
  }

  emit(stage: PipelineStage): void {
    if (!this.sink) return;
    try {
      this.sink({ stage, stages: structuredClone(this.stages), records: this.records, llm: this.llm() });
    } catch {
      // A display callback must not break the run.
    }
  }

  /** Milliseconds from the first to the last event of each stage. */
  timings(): Record<string, number> {
    return Object.fromEntries([...this.spans].map(([k, s]) => [k, Math.max(0, s.end - s.start)]));
  }
}
