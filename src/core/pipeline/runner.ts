/**
 * `runPipeline`: a spec in, a harness folder out, with progress, cancellation and resume.
 *
 * - **offline** runs the deterministic offline generator (`generateOffline`, built from the
 *   offline stage functions) and writes its records one by one (same seed → byte-identical
 *   records).
 * - **LLM** runs stream: each tool's interpretation, then each group's scenario batches as soon
 *   as its tools are interpreted, each accepted scenario's mock outputs and turn split as soon
 *   as it is accepted, and each record the moment it is complete. Calls share one
 *   `StructuredLlm` (concurrency, rate limit, retries) and its disk cache.
 *
 * Resume: every LLM reply is cached under `<outDir>/.cache/llm` (with the ledger of what was
 * repaired or salvaged under `<outDir>/.cache/ledger`), record ids are derived from content, and
 * writes are atomic; so a cancelled or crashed run, re-run with the same inputs, repeats no
 * finished call, loses no record and duplicates none, and an unchanged re-run makes no call.
 * The manifest goes `running` → `complete` | `partial` | `cancelled` | `failed`. An LLM run is
 * judged by what became of its items (`runHealth.ts`): one in which no item was made by the model
 * fails, one with too many failed, discarded or offline-filled items is `partial`, and a quota
 * error stops the run at once (`partial` when records were made, else `failed`).
 */
import { setMaxListeners } from 'node:events';
import { join, resolve } from 'node:path';
import {
  FORMAT_VERSION,
  type HarnessManifest,
  type HarnessRecord,
  type ItemOutcomes,
  type ManifestCounts,
  type RunStatus,
  type SkippedTool,
} from '../harness/format';
import { specHash, toolHashes as specToolHashes } from '../harness/hash';
import { createLlmClient } from '../app/llmClient';
import { DEFAULT_COMPLEX, DEFAULT_SEED, DEFAULT_SIMPLE } from '../workspace/defaults';
import { CACHE_DIR } from '../workspace/layout';
import { isAbortError, LlmQuotaError, LlmStats, LlmStopError, StructuredLlm, type CallLimits, type ChatProvider, type LlmStatsSnapshot } from '../llm';
import type { Spec, Tool } from '../spec/model';
import { discarded, type StageContext } from './llm/context';
import { interpretTool, type InterpretOutcome } from './llm/interpret';
import { DiskLedger, MemoryLedger } from './llm/ledger';
import { mockScenario } from './llm/mock';
import { generateScenarios, type AcceptedScenario } from './llm/scenarios';
import { assembleRecord } from './assembleRecord';
import { skipIfDuplicate } from './duplicateTools';
import { expandTurns, type TurnsMode } from './llm/turns';
import { DEFAULT_GROUPING } from './llm/grouping';
import { generateOfflineYielding, OFFLINE_PROVIDER, offlineManifest } from './offline';
import { PromptLibrary } from '../llm/prompts';
import { claimOutputFolder } from '../harness/outputFolder';
import { emptyTally, itemOutcomes, runVerdict } from './runHealth';
import { recordCounts, RunWriter } from './runWriter';
import { TurnSplit } from './schemas';
import { compileSchema } from '../checks/validateCall';

// Defaults, the rate-limit window and the cache folder's name live in workspace/; re-exported for existing callers.
export { DEFAULT_COMPLEX, DEFAULT_SEED, DEFAULT_SIMPLE, RPM_WINDOW_MS } from '../workspace/defaults';
export { CACHE_DIR } from '../workspace/layout';
/** Coverage follow-up rounds per group (and global rounds after them). */
export const DEFAULT_COVERAGE_ROUNDS = 2;

/** The templates a generation run uses (the prompts folder also holds the judge's). */
export const GENERATION_TEMPLATES = [
  'interpret',
  'scenarios-simple',
  'scenarios-complex',
  'coverage-followup',
  'mock',
  'turns-grounded',
  'turns-standard',
] as const;

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
  /** Stage-4 mode: `auto` (grounded when outputs exist, always so in this runner), or forced. */
  turnsMode?: 'auto' | TurnsMode;
  /** Clock for timings (ms since epoch). Default `Date.now`. */
  now?: () => number;
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

const ZERO_LLM: PipelineLlmCounts = { calls: 0, cacheHits: 0, retries: 0, reasks: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };

function llmDiff(a: LlmStatsSnapshot, b: LlmStatsSnapshot): PipelineLlmCounts {
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
class Progress {
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

/** Builds a client for the pipeline (the shared recipe in app/llmClient.ts): its cache under `<cacheDir or outDir/.cache>/llm`. */
export function createPipelineLlm(options: {
  chat: ChatProvider;
  outDir: string;
  cacheDir?: string;
  concurrency?: number;
  rpm?: number;
  limits?: CallLimits;
  stats?: LlmStats;
}): {
  llm: StructuredLlm;
  cacheDir: string;
} {
  return createLlmClient({
    chat: options.chat,
    role: 'generate',
    cacheDir: options.cacheDir ?? join(options.outDir, CACHE_DIR),
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.rpm !== undefined ? { rpm: options.rpm } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.stats ? { stats: options.stats } : {}),
  });
}

/** Tools the LLM stages can use, and the others with why (duplicates, unusable schemas). */
export function callableTools(spec: Spec): { callable: Tool[]; skipped: SkippedTool[] } {
  const callable: Tool[] = [];
  const skipped: SkippedTool[] = [];
  const seen = new Set<string>();
  for (const tool of spec.tools) {
    const duplicate = skipIfDuplicate(seen, tool.name);
    if (duplicate) {
      skipped.push(duplicate);
      continue;
    }
    const compiled = compileSchema(tool.inputSchema ?? {});
    if (!compiled.ok) skipped.push({ tool: tool.name, reason: `inputSchema cannot be compiled: ${compiled.message}` });
    else callable.push(tool);
  }
  return { callable, skipped };
}

function emptyCounts(spec: Spec, skipped: SkippedTool[]): ManifestCounts {
  return recordCounts(spec, [], { repaired: {}, discarded: {}, coverageRound: 0, skipped });
}

/**
 * Runs the pipeline. Never throws for run failures: they come back as `status: 'failed'`. Throws
 * before anything is written when the output folder must not be used (`OutputFolderError`: a
 * file, a folder that is not a harness, another spec's harness) or another run holds it
 * (`FolderLockedError`).
 */
export async function runPipeline(options: RunPipelineOptions): Promise<PipelineResult> {
  const claim = await claimOutputFolder(resolve(options.outDir), { specName: options.spec.name, force: options.force === true, purpose: 'generate' });
  try {
    if (options.provider === 'offline') return await runOffline(options, claim.earlierRecordIds);
    const p = options.provider;
    if ('llm' in p) return await runLlm(options, p.llm, p.cacheDir !== undefined ? resolve(p.cacheDir) : undefined, claim.earlierRecordIds);
    const built = createPipelineLlm({
      chat: p.chat,
      outDir: options.outDir,
      cacheDir: p.cacheDir,
      concurrency: options.concurrency,
      rpm: options.rpm,
      limits: p.limits,
    });
    return await runLlm(options, built.llm, built.cacheDir, claim.earlierRecordIds);
  } finally {
    await claim.release();
  }
}

function finalResult(
  status: PipelineResult['status'],
  outDir: string,
  manifest: HarnessManifest,
  extra: Omit<PipelineResult, 'status' | 'outputDir' | 'manifest' | 'counts' | 'multiTurnRate'>,
): PipelineResult {
  const c = manifest.counts;
  return { status, outputDir: outDir, manifest, counts: c, multiTurnRate: c.multiCall ? c.multiTurn / c.multiCall : null, ...extra };
}

async function runOffline(o: RunPipelineOptions, earlier: readonly string[]): Promise<PipelineResult> {
  const now = o.now ?? Date.now;
  const started = now();
  const outDir = resolve(o.outDir);
  const opts = {
    seed: Math.trunc(o.seed ?? DEFAULT_SEED),
    simple: Math.max(0, o.simple ?? DEFAULT_SIMPLE),
    complex: Math.max(0, o.complex ?? DEFAULT_COMPLEX),
  };
  const progress = new Progress(now, () => ZERO_LLM, o.onProgress);
  const result = await generateOfflineYielding(o.spec, opts);
  const startedAt = new Date(started).toISOString();
  const base: HarnessManifest = {
    ...offlineManifest(o.spec, opts, result, { startedAt }),
    status: 'running',
    recordIds: [],
    counts: emptyCounts(o.spec, result.skipped),
  };
  const writer = new RunWriter(outDir, base, earlier);
  await writer.start(o.spec);
  progress.add('write', result.records.length);
  let status: PipelineResult['status'] = 'complete';
  for (const record of result.records) {
    if (o.signal?.aborted) {
      status = 'cancelled';
      break;
    }
    await writer.writeRecord(record, (m, records) => ({
      ...m,
      counts: recordCounts(o.spec, records, { repaired: {}, discarded: {}, coverageRound: 0, skipped: result.skipped }),
    }));
    progress.records++;
    progress.done('write');
  }
  const finished = now();
  const ids = writer.records.map((r) => r.id);
  const counts =
    status === 'complete'
      ? result.manifestCounts
      : recordCounts(o.spec, writer.records, {
          repaired: result.manifestCounts.repaired,
          discarded: result.manifestCounts.discarded,
          coverageRound: result.manifestCounts.coverageRound,
          skipped: result.skipped,
        });
  const removedStale = status === 'complete' ? await writer.removeStale(ids) : 0;
  const manifest: HarnessManifest = {
    ...offlineManifest(o.spec, opts, result, { startedAt, finishedAt: new Date(finished).toISOString(), durationMs: finished - started }),
    status,
    recordIds: ids,
    counts,
  };
  manifest.timings.stages = progress.timings();
  await writer.finish(manifest);
  return finalResult(status, outDir, writer.current, {
    llm: ZERO_LLM,
    wallTimeMs: finished - started,
    groups: 0,
    chainDepth: 0,
    maxPromptTokens: 0,
    removedStale,
  });
}

async function runLlm(o: RunPipelineOptions, llm: StructuredLlm, cacheDir: string | undefined, earlier: readonly string[]): Promise<PipelineResult> {
  const now = o.now ?? Date.now;
  const started = now();
  const outDir = resolve(o.outDir);
  const spec = o.spec;
  const seed = Math.trunc(o.seed ?? DEFAULT_SEED);
  const requested = { simple: Math.max(0, o.simple ?? DEFAULT_SIMPLE), complex: Math.max(0, o.complex ?? DEFAULT_COMPLEX) };
  const inner = new AbortController();
  // Every waiting call listens on the run's signal; hundreds at once are expected, not a leak.
  setMaxListeners(0, inner.signal);
  const onOuterAbort = (): void => inner.abort(o.signal?.reason);
  if (o.signal?.aborted) inner.abort(o.signal.reason);
  else o.signal?.addEventListener('abort', onOuterAbort, { once: true });

  const prompts = PromptLibrary.load(o.promptsDir);
  const baseStats = llm.stats.snapshot();
  const llmCounts = (): PipelineLlmCounts => llmDiff(baseStats, llm.stats.snapshot());
  const progress = new Progress(now, llmCounts, o.onProgress);
  const ctx: StageContext = {
    spec,
    llm,
    prompts,
    ledger: cacheDir ? new DiskLedger(join(cacheDir, 'ledger')) : new MemoryLedger(),
    signal: inner.signal,
    seed,
    repaired: {},
    discarded: {},
    examples: new Map(Object.entries(o.exampleOutputs ?? {})),
    steps: new Map(),
    items: emptyTally(),
  };
  const temperature = llm.keyParts({ stage: 'probe', promptVersion: '', prompt: '', schema: TurnSplit }).temperature;
  const promptVersions = Object.fromEntries(GENERATION_TEMPLATES.map((n) => [n, prompts.get(n).version]));
  const { callable, skipped } = callableTools(spec);
  const specInfo: HarnessManifest['spec'] = { name: spec.name, source: spec.source, hash: specHash(spec), toolHashes: specToolHashes(spec) };
  if (spec.server?.version) specInfo.serverVersion = spec.server.version;
  const startedAt = new Date(started).toISOString();
  const writer = new RunWriter(
    outDir,
    {
      formatVersion: FORMAT_VERSION,
      spec: specInfo,
      provider: llm.provider.id,
      model: llm.provider.model,
      temperature,
      promptVersions,
      seed,
      requested,
      counts: emptyCounts(spec, skipped),
      tokens: { input: 0, output: 0, calls: 0 },
      timings: { startedAt },
      status: 'running',
      recordIds: [],
    },
    earlier,
  );
  await writer.start(o.spec);

  let failure: unknown;
  const fail = (e: unknown): void => {
    if (inner.signal.aborted) return;
    failure = e;
    inner.abort(e);
  };

  // Stage 1, memoised per tool.
  const interpretations = new Map<string, Promise<InterpretOutcome>>();
  const interpretation = (tool: Tool): Promise<InterpretOutcome> => {
    let p = interpretations.get(tool.name);
    if (!p) {
      progress.add('interpret');
      p = interpretTool(ctx, tool).then(
        (r) => {
          progress.done('interpret');
          return r;
        },
        (e: unknown) => {
          // Stop the run now, not when stage 2 has waited for the group's other tools.
          fail(e);
          throw e;
        },
      );
      interpretations.set(tool.name, p);
    }
    return p;
  };
  const interpretVersion = prompts.get('interpret').version;
  /** `offline` or `none` when some tool of the record was not interpreted by the model. */
  const interpretedBy = async (names: readonly string[]): Promise<string | undefined> => {
    const sources = await Promise.all(names.map(async (n) => (await interpretations.get(n))?.source));
    return sources.includes('offline') ? OFFLINE_PROVIDER : sources.includes('none') ? 'none' : undefined;
  };
  let offlineRecords = 0;

  // Stages 3 and 4 per accepted scenario, then the record.
  const slots = new Map<string, string>();
  let coverageRound = 0;
  let chainDepth = 1;
  const turnsMode: TurnsMode = o.turnsMode === 'standard' ? 'standard' : 'grounded';
  const tokensOf = (): HarnessManifest['tokens'] => {
    const l = llmCounts();
    return { input: l.inputTokens, output: l.outputTokens, calls: l.calls };
  };
  const countsOf = (records: readonly HarnessRecord[]): ManifestCounts =>
    recordCounts(spec, records, { repaired: ctx.repaired, discarded: ctx.discarded, coverageRound, skipped });
  const finish = async (a: AcceptedScenario): Promise<void> => {
    progress.add('mock');
    const mock = await mockScenario(ctx, a.scenario);
    progress.done('mock');
    // Lost in transport: counted as a failed item, and no record is made up for it.
    if (!mock) return;
    let conversation: HarnessRecord['conversation'] = [];
    let turnsVersion: string | undefined;
    let depth = a.depth + 1;
    if (a.scenario.agent_workflow.length >= 2) {
      progress.add('turns');
      const t = await expandTurns(ctx, a.scenario, mock.result, turnsMode);
      progress.done('turns');
      conversation = t.turns ?? [];
      turnsVersion = t.version;
      depth++;
    }
    const stageProviders: Record<string, string> = {};
    if (a.source === 'offline') stageProviders.scenarios = OFFLINE_PROVIDER;
    if (mock.source === 'offline') stageProviders.mock = OFFLINE_PROVIDER;
    const interpreter = await interpretedBy(a.scenario.agent_workflow.map((c) => c.name));
    if (interpreter) stageProviders.interpret = interpreter;
    const promptVersionsOfRecord: Record<string, string> = { interpret: interpretVersion, scenarios: a.promptVersion, mock: mock.version };
    if (turnsVersion) promptVersionsOfRecord.turns = turnsVersion;
    const record = assembleRecord(spec, {
      id: a.id,
      tier: a.tier,
      category: a.category,
      scenario: a.scenario,
      mockWorkflow: mock.result.mock_workflow,
      expectedResponse: mock.result.expected_response,
      conversation,
      provenance: {
        provider: llm.provider.id,
        model: llm.provider.model,
        temperature,
        seed,
        promptVersions: promptVersionsOfRecord,
        ...(Object.keys(stageProviders).length ? { stageProviders } : {}),
      },
    });
    if (!record.checks.schemaValid) {
      // Unreachable when stage 2's checks hold; the harness must never carry an invalid call.
      discarded(ctx, 'record:schema-invalid');
      return;
    }
    if (record.checks.integrityViolations.length) discarded(ctx, 'integrity:unresolved-values', record.checks.integrityViolations.length);
    if (slots.has(record.id)) {
      discarded(ctx, 'record:duplicate-id');
      return;
    }
    slots.set(record.id, a.slot);
    if (Object.values(stageProviders).includes(OFFLINE_PROVIDER)) offlineRecords++;
    if (a.coverage) coverageRound++;
    chainDepth = Math.max(chainDepth, depth);
    await writer.writeRecord(record, (m, records) => ({ ...m, counts: countsOf(records), tokens: tokensOf() }));
    progress.records++;
    progress.add('write');
    progress.done('write');
  };

  const tasks: Promise<void>[] = [];
  let groups = 0;
  let maxPromptTokens = 0;
  try {
    const stage2 = await generateScenarios(ctx, callable, {
      simple: requested.simple,
      complex: requested.complex,
      promptTokenBudget: o.promptTokenBudget ?? DEFAULT_GROUPING.promptTokenBudget,
      maxGroupTools: o.maxGroupTools ?? DEFAULT_GROUPING.maxGroupTools,
      coverageRounds: o.coverageRounds ?? DEFAULT_COVERAGE_ROUNDS,
      interpretation,
      onScenario: (a) => tasks.push(finish(a).catch(fail)),
      onBatch: (event) => (event === 'planned' ? progress.add('scenarios') : progress.done('scenarios')),
    });
    groups = stage2.groups.length;
    maxPromptTokens = Math.max(0, ...stage2.promptTokens);
  } catch (e) {
    fail(e);
  }
  // No scenario arrives after stage 2 settles; wait for the records in flight.
  await Promise.all(tasks);
  o.signal?.removeEventListener('abort', onOuterAbort);

  const records = writer.records;
  const cancelled = o.signal?.aborted === true || (failure !== undefined && isAbortError(failure));
  const stop = failure instanceof LlmStopError ? errorText(failure) : undefined;
  let status: PipelineResult['status'];
  let reason: string | undefined;
  if (cancelled) status = 'cancelled';
  else if (failure !== undefined && stop === undefined) {
    status = 'failed';
    reason = errorText(failure);
  } else {
    const verdict = runVerdict(ctx.items, { records: records.length, ...(stop !== undefined ? { stopped: stop } : {}) });
    status = verdict.status;
    reason = verdict.reason;
  }
  const items = itemOutcomes(ctx.items, offlineRecords);
  const order = (id: string): string => slots.get(id) ?? '';
  const recordIds = records.map((r) => r.id).sort((x, y) => (order(x) < order(y) ? -1 : order(x) > order(y) ? 1 : x < y ? -1 : 1));
  const removedStale = status === 'complete' ? await writer.removeStale(recordIds) : 0;
  const finished = now();
  const manifest: HarnessManifest = {
    ...writer.current,
    recordIds,
    counts: countsOf(records),
    tokens: tokensOf(),
    timings: { startedAt, finishedAt: new Date(finished).toISOString(), durationMs: finished - started, stages: progress.timings() },
    status,
    items,
  };
  if (reason !== undefined) manifest.error = reason;
  await writer.finish(manifest);
  return finalResult(status, outDir, writer.current, {
    llm: llmCounts(),
    wallTimeMs: finished - started,
    groups,
    chainDepth,
    maxPromptTokens,
    removedStale,
    items,
    ...(stop !== undefined ? { stopped: failure instanceof LlmQuotaError ? ('quota' as const) : ('outage' as const) } : {}),
    ...(reason !== undefined ? { error: reason } : {}),
  });
}

function errorText(e: unknown): string {
  return e instanceof Error ? (e.message.split('\n')[0] ?? e.name) : String(e);
}
