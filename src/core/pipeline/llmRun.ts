/**
 * The state of one LLM run, in one place: the stage context the stages share, the writer, the
 * progress, the memo of tool interpretations, the first failure (which aborts the run), and the
 * counters the manifest reports (coverage round, chain depth, offline-filled records, each
 * record's scenario slot). `runLlm` in `runner.ts` drives it: stage 2 calls
 * {@link LlmRun.interpretation} and hands each accepted scenario to
 * {@link LlmRun.finishScenario}; at the end come {@link LlmRun.verdict} and
 * {@link LlmRun.finalManifest}.
 */
import { setMaxListeners } from 'node:events';
import { join, resolve } from 'node:path';
import { FORMAT_VERSION, type HarnessManifest, type HarnessRecord, type ManifestCounts, type SkippedTool } from '../harness/format';
import { specHash, toolHashes as specToolHashes } from '../harness/hash';
import { errorText } from '../util/errorText';
import { DEFAULT_COMPLEX, DEFAULT_FALLBACK, DEFAULT_SEED, DEFAULT_SIMPLE } from '../workspace/defaults';
import { isAbortError, LlmQuotaError, LlmStopError, type StructuredLlm } from '../llm';
import { BatchPendingError, BatchProvider } from '../llm/batch';
import { PromptLibrary } from '../llm/prompts';
import { runCost } from './runCost';
import type { Tool } from '../spec/model';
import { assembleRecord } from './assembleRecord';
import { discarded, repaired, type StageContext } from './llm/context';
import { interpretTool, type InterpretOutcome } from './llm/interpret';
import { DiskLedger, MemoryLedger } from './llm/ledger';
import { mockScenario } from './llm/mock';
import { stateValues } from './llm/statedValues';
import type { AcceptedScenario } from './llm/scenarios';
import { expandTurns, type TurnsMode } from './llm/turns';
import { OFFLINE_PROVIDER } from './offline';
import { llmDiff, Progress, type PipelineLlmCounts } from './progress';
import { demoteItem, emptyReason, emptyTally, itemOutcomes, runVerdict } from './runHealth';
import { finalResult, type PipelineResult, type RunPipelineOptions } from './runOptions';
import { emptyCounts, recordCounts, RunWriter } from './runWriter';
import { TurnSplit } from './schemas';

/** The templates a generation run uses (the prompts folder also holds the judge's). */
export const GENERATION_TEMPLATES = [
  'interpret',
  'scenarios-simple',
  'scenarios-complex',
  'coverage-followup',
  'restate-prompt',
  'mock',
  'turns-grounded',
  'turns-standard',
] as const;

/** How a run ended: its status, why it is not complete, and whether the provider stopped it. */
export interface LlmRunVerdict {
  status: PipelineResult['status'];
  reason?: string;
  stopped?: PipelineResult['stopped'];
}

/** A record made from an accepted scenario, with what the run's counters need to know about it. */
interface MadeRecord {
  record: HarnessRecord;
  /** Length of the chain of dependent LLM calls that made it. */
  depth: number;
  /** Whether a stage of it was filled by the offline generator. */
  offline: boolean;
}

/** One LLM run: its state and the steps that change it. Build it with {@link LlmRun.start}. */
export class LlmRun {
  /** What the stages share: spec, client, prompts, ledger, the run's signal, its tallies. */
  readonly ctx: StageContext;
  readonly progress: Progress;
  readonly writer: RunWriter;
  /** Simple and complex scenarios requested (coverage rounds may add more). */
  readonly requested: { simple: number; complex: number };
  /** Longest chain of dependent LLM calls of a kept record (interpret → scenarios → … → turns). */
  chainDepth = 1;

  private readonly now: () => number;
  private readonly started: number;
  /** Aborted by the caller's signal or by the first failure; every stage listens on it. */
  private readonly inner = new AbortController();
  private readonly onOuterAbort = (): void => this.inner.abort(this.options.signal?.reason);
  private readonly baseStats: ReturnType<StructuredLlm['stats']['snapshot']>;
  private readonly temperature: number | null;
  private readonly interpretVersion: string;
  private readonly turnsMode: TurnsMode;
  /** Stage 1, memoised per tool name. */
  private readonly interpretations = new Map<string, Promise<InterpretOutcome>>();
  /** Record id → the slot of its scenario: the manifest lists records in slot order. */
  private readonly slots = new Map<string, string>();
  private readonly tasks: Promise<void>[] = [];
  private failure: unknown;
  private coverageRound = 0;
  private offlineRecords = 0;

  private constructor(
    private readonly options: RunPipelineOptions,
    private readonly llm: StructuredLlm,
    cacheDir: string | undefined,
    private readonly skipped: SkippedTool[],
    earlier: readonly string[],
  ) {
    this.now = options.now ?? Date.now;
    this.started = this.now();
    const spec = options.spec;
    const seed = Math.trunc(options.seed ?? DEFAULT_SEED);
    this.requested = { simple: Math.max(0, options.simple ?? DEFAULT_SIMPLE), complex: Math.max(0, options.complex ?? DEFAULT_COMPLEX) };
    // Every waiting call listens on the run's signal; hundreds at once are expected, not a leak.
    setMaxListeners(0, this.inner.signal);
    if (options.signal?.aborted) this.inner.abort(options.signal.reason);
    else options.signal?.addEventListener('abort', this.onOuterAbort, { once: true });

    const prompts = PromptLibrary.load(options.promptsDir);
    this.baseStats = llm.stats.snapshot();
    this.progress = new Progress(this.now, () => this.llmCounts(), options.onProgress);
    this.ctx = {
      spec,
      llm,
      prompts,
      ledger: cacheDir ? new DiskLedger(join(cacheDir, 'ledger')) : new MemoryLedger(),
      signal: this.inner.signal,
      seed,
      repaired: {},
      discarded: {},
      examples: new Map(Object.entries(options.exampleOutputs ?? {})),
      steps: new Map(),
      items: emptyTally(),
      fallback: options.fallback ?? DEFAULT_FALLBACK,
    };
    this.temperature = llm.keyParts({ stage: 'probe', promptVersion: '', prompt: '', schema: TurnSplit }).temperature;
    this.interpretVersion = prompts.get('interpret').version;
    this.turnsMode = options.turnsMode === 'standard' ? 'standard' : 'grounded';
    const specInfo: HarnessManifest['spec'] = { name: spec.name, source: spec.source, hash: specHash(spec), toolHashes: specToolHashes(spec) };
    if (spec.server?.version) specInfo.serverVersion = spec.server.version;
    this.writer = new RunWriter(
      resolve(options.outDir),
      {
        formatVersion: FORMAT_VERSION,
        spec: specInfo,
        provider: llm.provider.id,
        model: llm.provider.model,
        temperature: this.temperature,
        promptVersions: Object.fromEntries(GENERATION_TEMPLATES.map((n) => [n, prompts.get(n).version])),
        seed,
        requested: this.requested,
        counts: emptyCounts(spec, skipped),
        tokens: { input: 0, output: 0, calls: 0 },
        timings: { startedAt: new Date(this.started).toISOString() },
        status: 'running',
        recordIds: [],
      },
      earlier,
    );
  }

  /** Starts a run in a claimed folder (`earlier`: the record ids already there): the `running` manifest is written. */
  static async start(
    options: RunPipelineOptions,
    llm: StructuredLlm,
    cacheDir: string | undefined,
    skipped: SkippedTool[],
    earlier: readonly string[],
  ): Promise<LlmRun> {
    const run = new LlmRun(options, llm, cacheDir, skipped, earlier);
    await run.writer.start(options.spec);
    return run;
  }

  /** The LLM accounting of this run so far. */
  llmCounts(): PipelineLlmCounts {
    return llmDiff(this.baseStats, this.llm.stats.snapshot());
  }

  /** Records the first failure and aborts the run with it (later ones, and those after a cancel, are dropped). */
  fail(e: unknown): void {
    if (this.inner.signal.aborted) return;
    this.failure = e;
    this.inner.abort(e);
  }

  /** Stage 1 for a tool, asked once per run; a failure stops the run at once. */
  interpretation(tool: Tool): Promise<InterpretOutcome> {
    let p = this.interpretations.get(tool.name);
    if (!p) {
      this.progress.add('interpret');
      p = interpretTool(this.ctx, tool).then(
        (r) => {
          this.progress.done('interpret');
          return r;
        },
        (e: unknown) => {
          // Stop the run now, not when stage 2 has waited for the group's other tools.
          this.fail(e);
          throw e;
        },
      );
      this.interpretations.set(tool.name, p);
    }
    return p;
  }

  /**
   * Starts stages 3 and 4 and the record of an accepted scenario; {@link settle} waits for them.
   * Resolves to whether the record was kept (stage 2 counts coverage by kept records).
   */
  accept(a: AcceptedScenario): Promise<boolean> {
    const kept = this.finishScenario(a).catch((e: unknown) => {
      this.fail(e);
      return false;
    });
    this.tasks.push(kept.then(() => undefined));
    return kept;
  }

  /** Waits for the records in flight (none arrives after stage 2 settles) and lets go of the caller's signal. */
  async settle(): Promise<void> {
    await Promise.all(this.tasks);
    this.options.signal?.removeEventListener('abort', this.onOuterAbort);
  }

  /** Stages 3 and 4 of an accepted scenario, then its record, written unless it must be discarded; whether it was written. */
  async finishScenario(a: AcceptedScenario): Promise<boolean> {
    const made = await this.makeRecord(a);
    return made ? await this.keep(made, a) : false;
  }

  /**
   * The request restated with every value its calls need (`llm/statedValues.ts`), the mock
   * outputs, the turns (for two or more calls) and the record; undefined when the restatement or
   * the mock was lost (counted as a failed or discarded item).
   */
  private async makeRecord(accepted: AcceptedScenario): Promise<MadeRecord | undefined> {
    // The offline generator's scenarios (a last resort for coverage) do not wait on the model.
    const stated = accepted.source === 'llm' ? await stateValues(this.ctx, accepted.scenario) : { scenario: accepted.scenario, restated: false as const };
    if (!stated) return undefined;
    const a: AcceptedScenario = stated.restated ? { ...accepted, scenario: stated.scenario, depth: accepted.depth + 1 } : accepted;
    this.progress.add('mock');
    const mock = await mockScenario(this.ctx, a.scenario);
    this.progress.done('mock');
    // Lost in transport or discarded: counted as a failed or discarded item, and no record is made up for it.
    if (!mock) return undefined;
    let conversation: HarnessRecord['conversation'] = [];
    let turnsVersion: string | undefined;
    let depth = a.depth + 1;
    if (a.scenario.agent_workflow.length >= 2) {
      this.progress.add('turns');
      const t = await expandTurns(this.ctx, a.scenario, mock.result, this.turnsMode);
      this.progress.done('turns');
      conversation = t.turns ?? [];
      turnsVersion = t.version;
      depth++;
    }
    const stageProviders: Record<string, string> = {};
    if (a.source === 'offline') stageProviders.scenarios = OFFLINE_PROVIDER;
    if (mock.source === 'offline') stageProviders.mock = OFFLINE_PROVIDER;
    const interpreter = await this.interpretedBy(a.scenario.agent_workflow.map((c) => c.name));
    if (interpreter) stageProviders.interpret = interpreter;
    const promptVersions: Record<string, string> = { interpret: this.interpretVersion, scenarios: a.promptVersion, mock: mock.version };
    if (stated.restated) promptVersions.restate = stated.version;
    if (turnsVersion) promptVersions.turns = turnsVersion;
    const record = assembleRecord(this.ctx.spec, {
      id: a.id,
      tier: a.tier,
      category: a.category,
      scenario: a.scenario,
      mockWorkflow: mock.result.mock_workflow,
      expectedResponse: mock.result.expected_response,
      conversation,
      provenance: {
        provider: this.llm.provider.id,
        model: this.llm.provider.model,
        temperature: this.temperature,
        seed: this.ctx.seed,
        promptVersions,
        ...(Object.keys(stageProviders).length ? { stageProviders } : {}),
        ...(stated.restated ? { statedValues: stated.values } : {}),
        ...(mock.integrity !== 'consistent' ? { integrity: mock.integrity } : {}),
        ...(mock.determinacy !== 'consistent' ? { determinacy: mock.determinacy } : {}),
        ...(mock.responseGrounded ? {} : { response: 'not-grounded' as const }),
      },
    });
    return { record, depth, offline: Object.values(stageProviders).includes(OFFLINE_PROVIDER) };
  }

  /** `offline` or `none` when some tool of the record was not interpreted by the model. */
  private async interpretedBy(names: readonly string[]): Promise<string | undefined> {
    const sources = await Promise.all(names.map(async (n) => (await this.interpretations.get(n))?.source));
    return sources.includes('offline') ? OFFLINE_PROVIDER : sources.includes('none') ? 'none' : undefined;
  }

  /** Writes the record and counts it, or discards it (invalid call, unresolved integrity or determinacy, duplicate id). */
  private async keep({ record, depth, offline }: MadeRecord, a: AcceptedScenario): Promise<boolean> {
    if (!record.checks.schemaValid) {
      // Unreachable when stage 2's checks hold; the harness must never carry an invalid call.
      discarded(this.ctx, 'record:schema-invalid');
      return false;
    }
    if (record.checks.integrityViolations.length) {
      // Never shipped unlabelled: a value no earlier output or prompt supplies makes the oracle unreplayable.
      discarded(this.ctx, 'record:integrity-unresolved');
      return false;
    }
    if (record.checks.determinacy?.length) {
      // Never shipped unlabelled (issue 20): an expected value the user's words and the outputs
      // shown do not pin down scores a correct agent as wrong. Stage 3 already re-asked and
      // repaired its own findings; what reaches here (a number reused from the user's words, a
      // turn split whose messages do not pick the item, offline-filled outputs) is discarded and
      // counted as a discarded item, so the summary and the exit status say it. With --fallback
      // offline the run has chosen coverage over purity: the record is kept, labelled
      // `provenance.determinacy: unresolved` (its findings are in checks.determinacy, which the
      // judge scores), and counted.
      if (this.ctx.fallback !== 'offline') {
        discarded(this.ctx, 'record:undetermined');
        demoteItem(this.ctx.items);
        return false;
      }
      record.provenance.determinacy = 'unresolved';
      repaired(this.ctx, 'record:undetermined-kept');
    }
    if (this.slots.has(record.id)) {
      discarded(this.ctx, 'record:duplicate-id');
      return false;
    }
    this.slots.set(record.id, a.slot);
    if (offline) this.offlineRecords++;
    if (a.coverage) this.coverageRound++;
    this.chainDepth = Math.max(this.chainDepth, depth);
    await this.writer.writeRecord(record, (m, records) => ({ ...m, counts: this.countsOf(records), tokens: this.tokens() }));
    this.progress.records++;
    this.progress.add('write');
    this.progress.done('write');
    return true;
  }

  /**
   * How the run ended: `pending` when batch jobs were left running on purpose, `cancelled` by the
   * caller (or an abort), `failed` on any other failure but a provider stop, else judged by what
   * became of its items (`runHealth.ts`).
   */
  verdict(): LlmRunVerdict {
    const failure = this.failure;
    // Batch jobs left running on purpose (--no-wait): not a failure, and not done either.
    if (failure instanceof BatchPendingError && this.options.signal?.aborted !== true) return { status: 'pending', reason: errorText(failure) };
    const stop = failure instanceof LlmStopError ? errorText(failure) : undefined;
    // A provider stop is reported even when a cancel came after it.
    const stopped = stop === undefined ? {} : { stopped: failure instanceof LlmQuotaError ? ('quota' as const) : ('outage' as const) };
    const cancelled = this.options.signal?.aborted === true || (failure !== undefined && isAbortError(failure));
    if (cancelled) return { status: 'cancelled', ...stopped };
    if (failure !== undefined && stop === undefined) return { status: 'failed', reason: errorText(failure) };
    const judged = runVerdict(this.ctx.items, {
      records: this.writer.records.length,
      emptyReason: emptyReason({ tools: this.ctx.spec.tools.length, skipped: this.skipped, requested: this.requested, discarded: this.ctx.discarded }),
      ...(stop !== undefined ? { stopped: stop } : {}),
    });
    return { status: judged.status, ...(judged.reason !== undefined ? { reason: judged.reason } : {}), ...stopped };
  }

  /** The written records' ids in the order of their scenario slots (ties by id). */
  recordIds(): string[] {
    const order = (id: string): string => this.slots.get(id) ?? '';
    return this.writer.records.map((r) => r.id).sort((x, y) => (order(x) < order(y) ? -1 : order(x) > order(y) ? 1 : x < y ? -1 : 1));
  }

  /** The manifest that ends the run, finished now. */
  finalManifest(verdict: LlmRunVerdict, recordIds: string[]): HarnessManifest {
    const items = itemOutcomes(this.ctx.items, this.offlineRecords);
    const finished = this.now();
    const manifest: HarnessManifest = {
      ...this.writer.current,
      recordIds,
      counts: this.countsOf(this.writer.records),
      tokens: this.tokens(),
      timings: {
        startedAt: new Date(this.started).toISOString(),
        finishedAt: new Date(finished).toISOString(),
        durationMs: finished - this.started,
        stages: this.progress.timings(),
      },
      status: verdict.status,
      items,
      cost: runCost(this.writer.current, this.tokens(), { ...this.options.cost, ...this.syncShare() }),
    };
    if (verdict.reason !== undefined) manifest.error = verdict.reason;
    return manifest;
  }

  /** The run's result from the manifest written last. */
  result(verdict: LlmRunVerdict, extra: { groups: number; maxPromptTokens: number; removedStale: number }): PipelineResult {
    const manifest = this.writer.current;
    return finalResult(verdict.status, resolve(this.options.outDir), manifest, {
      llm: this.llmCounts(),
      wallTimeMs: manifest.timings.durationMs ?? 0,
      groups: extra.groups,
      chainDepth: this.chainDepth,
      maxPromptTokens: extra.maxPromptTokens,
      removedStale: extra.removedStale,
      ...(manifest.items ? { items: manifest.items } : {}),
      ...(verdict.stopped !== undefined ? { stopped: verdict.stopped } : {}),
      ...(verdict.reason !== undefined ? { error: verdict.reason } : {}),
    });
  }

  private countsOf(records: readonly HarnessRecord[]): ManifestCounts {
    return recordCounts(this.ctx.spec, records, {
      repaired: this.ctx.repaired,
      discarded: this.ctx.discarded,
      coverageRound: this.coverageRound,
      skipped: this.skipped,
    });
  }

  /** In batch mode, the tokens of items retried synchronously (`--batch-retry sync`): billed at the full price. */
  private syncShare(): { syncTokens?: { input: number; output: number } } {
    const provider = this.llm.provider;
    if (!(provider instanceof BatchProvider)) return {};
    const sync = provider.summary().usage.sync;
    return sync.inputTokens + sync.outputTokens > 0 ? { syncTokens: { input: sync.inputTokens, output: sync.outputTokens } } : {};
  }

  private tokens(): HarnessManifest['tokens'] {
    const l = this.llmCounts();
    return { input: l.inputTokens, output: l.outputTokens, calls: l.calls };
  }
}
