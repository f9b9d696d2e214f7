/**
 * What a pipeline run takes (`RunPipelineOptions`) and gives back (`PipelineResult`), shared by
 * the runner, the offline run and the LLM run.
 */
import type { HarnessManifest, ItemOutcomes, ManifestCounts, RunStatus } from '../harness/format';
import type { CallLimits, ChatProvider, StructuredLlm } from '../llm';
import type { CostEstimate, CostMode, Prices } from '../llm/pricing';
import type { Spec } from '../spec/model';
import type { GenerationFallback } from '../workspace/defaults';
import type { TurnsMode } from './llm/turns';
import type { PipelineLlmCounts, PipelineProgress } from './progress';

/** A model for the pipeline: a ready client, or a raw provider the runner wraps. */
export type PipelineLlmProvider =
  | {
      /** A ready client (its cache, limits and stats are used as they are). */
      llm: StructuredLlm;
      /** Where the ledger goes (`<cacheDir>/ledger`); in memory when absent. */
      cacheDir?: string;
    }
  | {
      /** A raw provider: the runner builds the client with a disk cache under `cacheDir`. */
      chat: ChatProvider;
      /** Cache folder; default `<outDir>/.cache`. */
      cacheDir?: string;
      /** Limits besides `concurrency`/`rpm` (timeouts, retry policy). */
      limits?: CallLimits;
    };

/** Options of {@link runPipeline}. */
export interface RunPipelineOptions {
  spec: Spec;
  /** `'offline'` (deterministic, no network) or a model. */
  provider: 'offline' | PipelineLlmProvider;
  /** The harness folder (records/ and manifest.json). */
  outDir: string;
  /** Offline: seed of every choice. LLM: which sample of the scenario calls (a new seed asks anew). */
  seed?: number;
  /** Simple scenarios requested (coverage rounds may add more). Default 10. */
  simple?: number;
  /** Complex scenarios requested. Default 10. */
  complex?: number;
  /** LLM calls in flight when the runner builds the client. Default 4. */
  concurrency?: number;
  /** LLM requests per minute when the runner builds the client. */
  rpm?: number;
  signal?: AbortSignal;
  onProgress?: (progress: PipelineProgress) => void;
  /** Write into a non-empty folder that is not a harness, or replace another spec's harness there. */
  force?: boolean;
  /** Prompt templates folder; default `prompts/` of the package. */
  promptsDir?: string;
  /** Example outputs per tool name (raise mock grounding to high for those tools). */
  exampleOutputs?: Readonly<Record<string, readonly unknown[]>>;
  /** Most tokens per scenario prompt (default 8000). */
  promptTokenBudget?: number;
  /** Most tools per group (default 16). */
  maxGroupTools?: number;
  /** Coverage follow-up rounds (default 2). */
  coverageRounds?: number;
  /**
   * Ask again for the items an earlier run of this harness discarded (their discards are cached,
   * so a plain re-run makes no call for them): each a new sample, never the reply that was
   * discarded. Only when the runner builds the client (`provider.chat`).
   */
  retryDiscarded?: boolean;
  /** Stage-4 mode: `auto` (grounded when outputs exist, always so in this runner), or forced. */
  turnsMode?: 'auto' | TurnsMode;
  /** Clock for timings (ms since epoch). Default `Date.now`. */
  now?: () => number;
  /**
   * LLM runs: what stands in for an item the model could not make after its tries. `none`
   * (default): nothing, it is discarded and counted; `offline`: the offline generator's template,
   * labelled in the record's provenance and counted in the manifest.
   */
  fallback?: GenerationFallback;
  /**
   * LLM runs: how the manifest's `cost` is priced. `prices` default the built-in table; `mode`
   * `sync` (default) or `batch` (a batch run's caller says so); `estimate` the one made before
   * the run (`estimateGeneration`), kept beside the actual figures.
   */
  cost?: { prices?: Prices; mode?: CostMode; estimate?: CostEstimate };
}

/** What a run produced. */
export interface PipelineResult {
  status: Exclude<RunStatus, 'running'>;
  outputDir: string;
  /** The manifest as written last. */
  manifest: HarnessManifest;
  counts: ManifestCounts;
  /** Multi-turn records over records with two or more calls; null when there are none. */
  multiTurnRate: number | null;
  llm: PipelineLlmCounts;
  wallTimeMs: number;
  /** Tool groups used for stage 2 (1 for small specs, 0 offline). */
  groups: number;
  /** Longest chain of dependent LLM calls (interpret → scenarios → … → turns). */
  chainDepth: number;
  /** Largest estimated token count of a scenario prompt. */
  maxPromptTokens: number;
  /** Record files of earlier runs removed from the folder. */
  removedStale: number;
  /** LLM runs: what became of the items (absent offline). */
  items?: ItemOutcomes;
  /** The provider stopped the run: its quota ran out, or its endpoint is down (re-running later resumes it). */
  stopped?: 'quota' | 'outage';
  /** Why the run failed or is partial. */
  error?: string;
}

/** The result of a run from the manifest it wrote last (counts and multi-turn rate come from it). */
export function finalResult(
  status: PipelineResult['status'],
  outDir: string,
  manifest: HarnessManifest,
  extra: Omit<PipelineResult, 'status' | 'outputDir' | 'manifest' | 'counts' | 'multiTurnRate'>,
): PipelineResult {
  const c = manifest.counts;
  return { status, outputDir: outDir, manifest, counts: c, multiTurnRate: c.multiCall ? c.multiTurn / c.multiCall : null, ...extra };
}
