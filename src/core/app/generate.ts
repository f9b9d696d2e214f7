/**
 * The `generate` use case, one for both front ends (the CLI's `generate`, the editor's Generate
 * Evals and Regenerate Stale): inputs, progress and outcome as data. A front end resolves the
 * spec and the harness folder, builds the model's client (key, trust, batch engine) and asks
 * about the cost in its own way; everything from there — the estimate of the run, how batch mode
 * and the rate limit shape the call limits, how the run is priced, the full or stale-only run,
 * and closing the batch engine — is here, so a change to it is made once.
 */
import { regenerateStale, type StaleRegeneration } from '../pipeline/regenerateStale';
import { runPipeline, type PipelineProgress, type PipelineResult, type RunPipelineOptions } from '../pipeline/runner';
import { estimateGeneration } from '../pipeline/estimate';
import type { CallLimits, ChatProvider } from '../llm';
import type { BatchSummary } from '../llm/batch/batchProvider';
import type { CostEstimate, Prices } from '../llm/pricing';
import { PromptLibrary } from '../llm/prompts';
import type { Spec } from '../spec/model';
import type { GenerationFallback } from '../workspace/defaults';
import type { BatchMode } from './batchMode';

/** What is asked of a run, whichever front end asks. */
export interface GenerationSettings {
  simple: number;
  complex: number;
  /** LLM calls in flight (batch mode replaces it with the engine's own). */
  concurrency: number;
  /** LLM requests per minute (not used in batch mode: the provider paces its jobs). */
  rpm?: number;
  seed?: number;
  fallback: GenerationFallback;
  retryDiscarded?: boolean;
}

/** The model a run calls: a built client, in batch mode wrapped in the engine. */
export interface GenerationModel {
  chat: ChatProvider;
  batch?: BatchMode;
  /** The reply cache; default `<outDir>/.cache`. */
  cacheDir?: string;
  /** How long a synchronous request may go without an answer. */
  timeoutMs: number;
  prices: Prices;
  /** The estimate made before the run, when the front end made it (to ask about it); else made here. */
  estimate?: CostEstimate;
}

/** One `generate` run. */
export interface GenerationRequest {
  spec: Spec;
  outDir: string;
  /** Undefined: the offline generator (no network). */
  model?: GenerationModel;
  settings: GenerationSettings;
  /** Regenerate only the records whose tools changed since the harness in `outDir` was made. */
  onlyStale?: boolean;
  /** Write into a folder that is not a harness of this spec. */
  force?: boolean;
  exampleOutputs?: Readonly<Record<string, readonly unknown[]>>;
  /** Prompt templates folder; default the package's `prompts/`. */
  promptsDir?: string;
  signal?: AbortSignal;
  onProgress?: (progress: PipelineProgress) => void;
  /** Told once the run's estimate is known (before any call), so a front end can show it. */
  onEstimate?: (estimate: CostEstimate) => void;
}

/** How a run ended: the pipeline's result (a stale-only run's carries its diff) and, in batch mode, the engine's account. */
export interface GenerationOutcome {
  result: PipelineResult | StaleRegeneration;
  batch?: BatchSummary;
}

/** The estimate of a full run with `provider`'s model, before it starts (no call made). */
export function generationEstimate(
  spec: Spec,
  provider: { id: string; model: string },
  counts: { simple: number; complex: number },
  prices: Prices,
  prompts?: PromptLibrary,
): CostEstimate {
  return estimateGeneration(spec, { provider: provider.id, model: provider.model, prices, ...counts, ...(prompts ? { prompts } : {}) });
}

/** The provider, limits and pricing of a run ({@link modelRunOptions}). */
export interface ModelRunOptions {
  provider: 'offline' | { chat: ChatProvider; cacheDir?: string; limits: CallLimits };
  concurrency: number;
  rpm?: number;
  cost?: NonNullable<RunPipelineOptions['cost']>;
}

/**
 * How a run's calls are limited and priced: in batch mode a whole round reaches the engine
 * together (its own concurrency, no rate limit, calls that may wait as long as a job runs) and
 * items are billed at the batch price; otherwise the request timeout and `rpm` hold. A corpus
 * takes the same (one model for every spec).
 */
export function modelRunOptions(model: GenerationModel | undefined, settings: Pick<GenerationSettings, 'concurrency' | 'rpm'>): ModelRunOptions {
  if (!model) return { provider: 'offline', concurrency: settings.concurrency };
  const batch = model.batch;
  return {
    provider: {
      chat: model.chat,
      ...(model.cacheDir !== undefined ? { cacheDir: model.cacheDir } : {}),
      limits: batch ? batch.limits : { timeoutMs: model.timeoutMs },
    },
    concurrency: batch?.concurrency ?? settings.concurrency,
    ...(settings.rpm !== undefined && !batch ? { rpm: settings.rpm } : {}),
    cost: { prices: model.prices, ...(batch ? { mode: 'batch' as const } : {}), ...(model.estimate ? { estimate: model.estimate } : {}) },
  };
}

/**
 * Runs `generate`. Never throws for a run's failure (it is the result's status); throws before
 * anything is written when the folder must not be used or another run holds it, as
 * {@link runPipeline}. The batch engine is closed when the run ends, however it ends.
 */
export async function generate(request: GenerationRequest): Promise<GenerationOutcome> {
  const { spec, settings } = request;
  let result: PipelineResult | StaleRegeneration;
  try {
    // A full run's estimate, made before any call: the front end shows it, the manifest keeps it.
    let model = request.model;
    if (model && !request.onlyStale) {
      const prompts = request.promptsDir !== undefined ? PromptLibrary.load(request.promptsDir) : undefined;
      const estimate = model.estimate ?? generationEstimate(spec, model.chat, { simple: settings.simple, complex: settings.complex }, model.prices, prompts);
      request.onEstimate?.(estimate);
      model = { ...model, estimate };
    }
    const options: RunPipelineOptions = {
      spec,
      outDir: request.outDir,
      simple: settings.simple,
      complex: settings.complex,
      fallback: settings.fallback,
      ...modelRunOptions(model, settings),
      ...(settings.seed !== undefined ? { seed: settings.seed } : {}),
      ...(settings.retryDiscarded ? { retryDiscarded: true } : {}),
      ...(request.force ? { force: true } : {}),
      ...(request.exampleOutputs ? { exampleOutputs: request.exampleOutputs } : {}),
      ...(request.promptsDir !== undefined ? { promptsDir: request.promptsDir } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
      ...(request.onProgress ? { onProgress: request.onProgress } : {}),
    };
    result = request.onlyStale ? await regenerateStale(options) : await runPipeline(options);
  } finally {
    await request.model?.batch?.chat.close();
  }
  const batch = request.model?.batch?.chat.summary();
  return { result, ...(batch ? { batch } : {}) };
}
