import { join, relative, resolve } from 'node:path';
import { resolveSpecPath, type ResolvedSpec } from '../../core/app/resolveSpec';
import { throttleProgress } from '../../core/app/throttle';
import { MAX_OPTION } from '../../core/bounds';
import { createProvider, DEFAULT_GEMINI_MODEL, DEFAULT_OPENAI_MODEL, LlmConfigError, type ChatProvider } from '../../core/llm';
import { estimateLine, formatEstimateUsd, formatUsd, type CostEstimate } from '../../core/llm/pricing';
import { estimateGeneration } from '../../core/pipeline/estimate';
import { diffSummary } from '../../core/harness/specDiff';
import { regenerateStale, type StaleRegeneration } from '../../core/pipeline/regenerateStale';
import { runPipeline, type PipelineProgress, type PipelineResult, type RunPipelineOptions } from '../../core/pipeline/runner';
import { DEGRADED_SHARE_LIMIT } from '../../core/pipeline/runHealth';
import { PAPER_MULTI_TURN_RATE } from '../../core/pipeline/llm/turns';
import {
  CLI_PROGRESS_EVERY_MS,
  DEFAULT_COMPLEX,
  DEFAULT_CONCURRENCY,
  DEFAULT_FALLBACK,
  DEFAULT_SEED,
  DEFAULT_SIMPLE,
  GENERATION_FALLBACKS,
  type GenerationFallback,
} from '../../core/workspace/defaults';
import { CACHE_DIR, HARNESS_FOLDER, SNAPSHOT_FOLDER } from '../../core/workspace/layout';
import type { BatchMode } from '../../core/app/batchMode';
import { BATCH_OPTIONS, BATCH_USAGE, batchArgs, batchSummaryLine, checkBatchArgs, startBatchMode, type BatchArgs } from '../batchOptions';
import type { OptionTable, Parsed } from '../command';
import { EXIT, UsageError, type Io } from '../errors';
import { formatProblem } from '../format';
import { intOption, outputFolderOption, pathOption, pricesOption, readInputFile } from '../options';

/** Raw options of `agent-seer generate`, as parsed from the command line. */
export interface GenerateArgs extends BatchArgs {
  input?: string;
  server?: string;
  provider: string;
  model?: string;
  baseUrl?: string;
  out?: string;
  cacheDir?: string;
  examples?: string;
  simple?: string;
  complex?: string;
  concurrency?: string;
  rpm?: string;
  seed?: string;
  /** What stands in for an item the model could not make: none or offline. */
  fallback?: string;
  /** Write into a folder that is not a harness of this spec. */
  force?: boolean;
  /** Regenerate only the records whose tools changed (and add records for new tools). */
  onlyStale?: boolean;
  /** Print the cost estimate and exit without calling anything. */
  estimate?: boolean;
  /** A price table (JSON) merged over the built-in one. */
  prices?: string;
  json: boolean;
}

/** The spec named on the command line (app/resolveSpec.ts), with the CLI's ways out added to its problems. */
async function resolveSpec(input: string, server: string | undefined, io: Io): Promise<ResolvedSpec> {
  const file = pathOption('input', input, io.cwd);
  const rel = (f: string): string => relative(io.cwd, f) || f;
  const r = await resolveSpecPath(file, { ...(server !== undefined ? { server } : {}), workspaceRoots: [io.cwd] });
  if (r.ok) {
    for (const w of r.warnings) io.err(`agent-seer: warning: ${w}`);
    return r;
  }
  if (r.snapshotMissing) {
    const m = r.snapshotMissing;
    throw new UsageError(
      `no snapshot of server "${m.server}" at ${rel(m.snapshotFile)}: run \`agent-seer snapshot ${input} --server ${m.server} --out ${rel(m.snapshotFolder)}\` first`,
    );
  }
  // The input itself is named as the user wrote it; other files (settings, snapshots) relative to the cwd.
  const where = r.problem.file === file ? { ...r.problem, file: input } : r.problem;
  throw new UsageError(`${formatProblem(where, rel)}${r.chooseServer ? ' with --server' : ''}`);
}

async function readExamples(path: string, io: Io): Promise<Record<string, unknown[]>> {
  const { text } = await readInputFile('--examples', path, io.cwd);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${path}: not JSON (${(e as Error).message})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`${path}: expected an object of tool name → example output(s)`);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, Array.isArray(v) ? v : [v]]));
}

function kTokens(n: number): string {
  return n >= 10_000 ? `${(n / 1000).toFixed(0)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

/** One progress line: stages, records, retries, tokens. */
export function progressLine(p: PipelineProgress): string {
  const llmStages = (['interpret', 'scenarios', 'mock', 'turns'] as const).filter((s) => p.stages[s].total > 0);
  // Offline runs have no LLM stages: show the writing instead.
  const stages = (llmStages.length ? llmStages : (['write'] as const)).map((s) => `${s} ${p.stages[s].done}/${p.stages[s].total}`);
  const llm =
    p.llm.calls || p.llm.cacheHits
      ? ` · calls ${p.llm.calls}${p.llm.cacheHits ? ` (+${p.llm.cacheHits} cached)` : ''} · retries ${p.llm.retries} · tokens ${kTokens(p.llm.inputTokens)} in / ${kTokens(p.llm.outputTokens)} out`
      : '';
  return `generate: ${[...stages, ...(llmStages.length ? [`records ${p.records}`] : [])].join(' · ')}${llm}`;
}

const percent = (x: number): string => `${Math.round(x * 100)}%`;
const countsText = (c: Record<string, number>): string =>
  Object.entries(c)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ') || 'none';

/** The JSON summary printed with `--json` (with `drift` after `--only-stale`). */
export function summaryJson(r: PipelineResult | StaleRegeneration): Record<string, unknown> {
  const c = r.counts;
  return {
    ...('diff' in r ? { drift: { ...r.diff, kept: r.kept, stale: r.stale } } : {}),
    outputDir: r.outputDir,
    status: r.status,
    provider: r.manifest.provider,
    model: r.manifest.model,
    records: c.records,
    byTier: c.byTier,
    multiCall: c.multiCall,
    multiTurn: c.multiTurn,
    multiTurnRate: r.multiTurnRate,
    paperMultiTurnRate: PAPER_MULTI_TURN_RATE,
    coverage: c.coverage,
    coverageRound: c.coverageRound,
    repaired: c.repaired,
    discarded: c.discarded,
    skipped: c.skipped,
    llm: r.llm,
    ...(r.items ? { items: r.items } : {}),
    ...(r.manifest.cost ? { cost: r.manifest.cost } : {}),
    wallTimeMs: r.wallTimeMs,
    groups: r.groups,
    chainDepth: r.chainDepth,
    ...(r.stopped ? { stopped: r.stopped } : {}),
    ...(r.error ? { error: r.error } : {}),
  };
}

/** The text summary. */
export function summaryText(r: PipelineResult, io: Io): string {
  const c = r.counts;
  const where = relative(io.cwd, r.outputDir) || r.outputDir;
  const lines = [
    `${r.status === 'complete' ? 'Wrote' : 'Kept'} ${c.records} record${c.records === 1 ? '' : 's'} in ${where} (${r.status}; ${r.manifest.provider} ${r.manifest.model})`,
    `  tiers: ${c.byTier.simple} simple, ${c.byTier.complex} complex${c.coverageRound ? ` (${c.coverageRound} added for coverage)` : ''}`,
    `  multi-turn: ${c.multiTurn} of ${c.multiCall} multi-call records${r.multiTurnRate !== null ? ` (${percent(r.multiTurnRate)}; the paper: ${percent(PAPER_MULTI_TURN_RATE)})` : ''}`,
    `  tool coverage: ${c.coverage.covered}/${c.coverage.tools} (${percent(c.coverage.ratio)})${c.coverage.uncovered.length ? `; not covered: ${c.coverage.uncovered.slice(0, 8).join(', ')}${c.coverage.uncovered.length > 8 ? ', …' : ''}` : ''}`,
    `  repaired: ${countsText(c.repaired)}`,
    `  discarded: ${countsText(c.discarded)}`,
  ];
  if (c.skipped.length) lines.push(`  skipped tools: ${c.skipped.map((s) => `${s.tool} (${s.reason})`).join('; ')}`);
  if (r.items?.offlineRecords) lines.push(`  ${r.items.offlineRecords} of ${c.records} records are offline templates (--fallback offline)`);
  if (r.items) {
    const i = r.items;
    const failedBy = countsText(i.failedBy);
    lines.push(
      `  LLM items: ${i.llm} of ${i.total} made by the model; ${i.failed} failed${i.failed ? ` (${failedBy})` : ''}, ${i.discarded} discarded, ${i.offline} filled offline (${i.offlineRecords} record${i.offlineRecords === 1 ? '' : 's'} with an offline stage); degraded ${percent(i.degradedShare)} (limit ${percent(DEGRADED_SHARE_LIMIT)})`,
    );
  }
  if (r.manifest.provider !== 'offline') {
    lines.push(
      `  LLM: ${r.llm.calls} calls, ${r.llm.cacheHits} cache hits, ${r.llm.retries} retries, ${r.llm.reasks} re-asks, ${r.llm.inputTokens} tokens in, ${r.llm.outputTokens} out`,
    );
    const cost = r.manifest.cost;
    if (cost) lines.push(`  ${costText(cost, r.manifest.model)}`);
  }
  lines.push(`  wall time: ${(r.wallTimeMs / 1000).toFixed(1)} s`);
  if (r.status === 'cancelled') lines.push('Cancelled: re-run the same command to resume (finished LLM calls are cached).');
  if (r.status === 'pending')
    lines.push(`Pending: ${r.error ?? `batch jobs are still running; run the same command again to collect them, or \`agent-seer status ${where}\``}.`);
  if (r.status === 'partial' || (r.status === 'failed' && r.items)) lines.push(`${r.status === 'partial' ? 'Partial' : 'Failed'}: ${r.error ?? 'see above'}`);
  if (r.stopped === 'quota')
    lines.push('Stopped by the LLM quota: re-run the same command once the quota resets; finished replies are cached and are not asked again.');
  else if (r.stopped === 'outage')
    lines.push(
      'Stopped: the LLM endpoint failed every recent call. Re-run the same command once it answers again; finished replies are cached and are not asked again.',
    );
  else if (r.status === 'partial' || (r.status === 'failed' && r.items?.failed))
    lines.push('Re-run the same command to retry the failed items (finished replies are cached).');
  return lines.join('\n');
}

/** The exit code of a generation run's status (README: exit codes). */
export function generateExitCode(status: PipelineResult['status']): number {
  return status === 'complete' ? EXIT.ok : status === 'partial' ? EXIT.partial : status === 'pending' ? EXIT.pending : EXIT.failed;
}

/** `cost: $0.0123 (sync; gemini-2.5-flash-lite, prices of 2026-12-02); estimated ≈$0.0150 (batch ≈$0.0075) for 46 calls` */
export function costText(cost: NonNullable<PipelineResult['manifest']['cost']>, model: string): string {
  const a = cost.actual;
  const prices = a.prices.source === 'built-in' ? `prices of ${a.prices.date}` : `prices of ${a.prices.date} from ${a.prices.source}`;
  const e = cost.estimate;
  const estimate = e ? `; estimated ${formatEstimateUsd(e.usd, e.batchUsd)} for ${e.calls.toLocaleString('en-US')} calls` : '';
  return `cost: ${formatUsd(a.usd)} (${a.mode}; ${model}, ${prices})${estimate}`;
}

/** The estimate of a full run, before it starts (no call made). */
function generationEstimate(
  spec: ResolvedSpec['spec'],
  provider: 'gemini' | 'openai',
  model: string,
  options: { simple: number; complex: number; prices: Awaited<ReturnType<typeof pricesOption>> },
): CostEstimate {
  return estimateGeneration(spec, { provider, model, prices: options.prices, simple: options.simple, complex: options.complex });
}

/** `agent-seer generate <spec-or-config> [options]` */
export async function generateCommand(args: GenerateArgs, io: Io, signal?: AbortSignal): Promise<number> {
  if (!args.input) throw new UsageError('generate needs a spec snapshot or an MCP config file');
  const provider = args.provider;
  if (provider !== 'offline' && provider !== 'gemini' && provider !== 'openai')
    throw new UsageError(`--provider takes offline, gemini or openai, got "${provider}"`);
  if (args.onlyStale && args.force) throw new UsageError('--only-stale keeps the harness in --out and cannot be combined with --force');
  if (args.onlyStale && args.estimate) throw new UsageError('--estimate estimates a full run and cannot be combined with --only-stale');
  if (args.onlyStale && (args.simple !== undefined || args.complex !== undefined))
    io.err('agent-seer: warning: --simple and --complex are not used with --only-stale (the stale records decide how many scenarios are asked for)');
  const simple = intOption('simple', args.simple, DEFAULT_SIMPLE, 0, MAX_OPTION.scenarios)!;
  const complex = intOption('complex', args.complex, DEFAULT_COMPLEX, 0, MAX_OPTION.scenarios)!;
  const concurrency = intOption('concurrency', args.concurrency, DEFAULT_CONCURRENCY, 1, MAX_OPTION.concurrency)!;
  const rpm = intOption('rpm', args.rpm, undefined, 1, MAX_OPTION.rpm);
  const seed = intOption('seed', args.seed, DEFAULT_SEED, 0)!;
  const fallback = args.fallback ?? DEFAULT_FALLBACK;
  if (!(GENERATION_FALLBACKS as readonly string[]).includes(fallback))
    throw new UsageError(`--fallback takes ${GENERATION_FALLBACKS.join(' or ')}, got "${fallback}"`);
  if (provider === 'offline' && args.fallback !== undefined) io.err('agent-seer: warning: --fallback is ignored with --provider offline');
  const batchSettings = checkBatchArgs(args, provider !== 'offline');
  if (batchSettings && rpm !== undefined) io.err('agent-seer: warning: --rpm is not used with --batch (the provider paces its batch jobs)');
  const { spec, harnessName } = await resolveSpec(args.input, args.server, io);
  if (spec.tools.length === 0) throw new UsageError(`${args.input}: the spec has no tools`);
  const outDir = args.out !== undefined ? await outputFolderOption('--out', args.out, io.cwd) : resolve(io.cwd, HARNESS_FOLDER, harnessName);
  const cacheDir = args.cacheDir !== undefined ? pathOption('--cache-dir', args.cacheDir, io.cwd) : undefined;
  const exampleOutputs = args.examples ? await readExamples(args.examples, io) : undefined;
  const prices = await pricesOption(args.prices, io.cwd);

  if (args.estimate) {
    // Nothing is built that could call out: no provider, no key needed.
    if (provider === 'offline') {
      io.out(args.json ? JSON.stringify({ estimate: null, provider }, null, 2) : 'estimate: 0 calls, $0.00 — the offline generator makes no LLM call');
      return EXIT.ok;
    }
    const model = args.model ?? (provider === 'gemini' ? DEFAULT_GEMINI_MODEL : DEFAULT_OPENAI_MODEL);
    const estimate = generationEstimate(spec, provider, model, { simple, complex, prices });
    io.out(args.json ? JSON.stringify({ estimate }, null, 2) : estimateLine(estimate));
    return EXIT.ok;
  }

  let chat: ChatProvider | undefined;
  let batch: BatchMode | undefined;
  if (provider !== 'offline') {
    const config = { provider, model: args.model, baseUrl: args.baseUrl, env: io.env } as const;
    try {
      chat = createProvider(config);
    } catch (e) {
      if (e instanceof LlmConfigError) throw new UsageError(e.message);
      throw e;
    }
    if (batchSettings) {
      batch = startBatchMode(
        batchSettings,
        config,
        chat,
        { cacheDir: cacheDir ?? join(outDir, CACHE_DIR), statusFolder: relative(io.cwd, outDir) || outDir },
        io,
      );
      chat = batch.chat;
    }
  } else if (args.model || args.baseUrl) {
    io.err('agent-seer: warning: --model and --base-url are ignored with --provider offline');
  }

  const onProgress = throttleProgress(CLI_PROGRESS_EVERY_MS, (p: PipelineProgress) => io.err(progressLine(p)));
  const generator = provider === 'offline' ? 'the offline generator' : `${chat?.id} ${chat?.model}`;
  const pipelineOptions: RunPipelineOptions = {
    spec,
    provider: chat ? { chat, ...(cacheDir ? { cacheDir } : {}), ...(batch ? { limits: batch.limits } : {}) } : 'offline',
    outDir,
    seed,
    simple,
    complex,
    concurrency: batch?.concurrency ?? concurrency,
    fallback: fallback as GenerationFallback,
    ...(rpm !== undefined ? { rpm } : {}),
    ...(exampleOutputs ? { exampleOutputs } : {}),
    ...(args.force ? { force: true } : {}),
    ...(signal ? { signal } : {}),
    onProgress,
    // Batch items are billed at the batch price (retries sent synchronously at the full one).
    ...(chat ? { cost: { prices, ...(batch ? { mode: 'batch' as const } : {}) } } : {}),
  };
  let result: PipelineResult | StaleRegeneration;
  try {
    if (args.onlyStale) {
      io.err(`agent-seer: regenerating the stale records of ${relative(io.cwd, outDir) || outDir} for "${spec.name}" with ${generator}…`);
      const r = await regenerateStale(pipelineOptions);
      io.err(`agent-seer: spec changes: ${diffSummary(r.diff)}; ${r.stale} stale record${r.stale === 1 ? '' : 's'}, ${r.kept} kept as they were`);
      result = r;
    } else {
      io.err(`agent-seer: generating for "${spec.name}" (${spec.tools.length} tools) with ${generator}${batch ? ' in batch mode' : ''}…`);
      if (chat) {
        const estimate = generationEstimate(spec, provider as 'gemini' | 'openai', chat.model, { simple, complex, prices });
        io.err(`agent-seer: ${estimateLine(estimate)}`);
        pipelineOptions.cost = { ...pipelineOptions.cost, prices, estimate };
      }
      result = await runPipeline(pipelineOptions);
    }
  } finally {
    await batch?.chat.close();
  }
  if (result.status === 'failed') io.err(`agent-seer: generation failed: ${result.error ?? 'unknown error'}`);
  if (result.status === 'partial') io.err(`agent-seer: generation partial: ${result.error ?? 'unknown reason'}`);
  const batchSummary = batch?.chat.summary();
  io.out(
    args.json
      ? JSON.stringify({ ...summaryJson(result), ...(batchSummary ? { batch: batchSummary } : {}) }, null, 2)
      : [summaryText(result, io), ...(batchSummary ? [batchSummaryLine(batchSummary)] : [])].filter((l) => l !== undefined).join('\n'),
  );
  return generateExitCode(result.status);
}

/** The option table of `agent-seer generate`. */
export const options = {
  server: { type: 'string' },
  provider: { type: 'string', default: 'offline' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  out: { type: 'string' },
  'cache-dir': { type: 'string' },
  examples: { type: 'string' },
  simple: { type: 'string' },
  complex: { type: 'string' },
  concurrency: { type: 'string' },
  rpm: { type: 'string' },
  seed: { type: 'string' },
  fallback: { type: 'string' },
  force: { type: 'boolean', default: false },
  'only-stale': { type: 'boolean', default: false },
  estimate: { type: 'boolean', default: false },
  prices: { type: 'string' },
  json: { type: 'boolean', default: false },
  ...BATCH_OPTIONS,
} as const satisfies OptionTable;

/** Its lines in the top-level help. */
export const synopsis = `  agent-seer generate <spec-or-config> [--server NAME] [--provider offline|gemini|openai]
                     [--model M] [--base-url URL] [--out DIR] [--simple N] [--complex N]
                     [--concurrency N] [--rpm N] [--seed S] [--examples FILE]
                     [--fallback none|offline] [--batch [--no-wait] [--batch-retry R]]
                     [--cache-dir DIR] [--force] [--only-stale] [--estimate]
                     [--prices FILE] [--json]
                                             generate an evaluation harness (default: offline,
                                             into ${HARNESS_FOLDER}/<server>/; keys from GEMINI_API_KEY or
                                             OPENAI_API_KEY; re-run to resume; --force: write
                                             into a folder that is not this spec's harness;
                                             --only-stale: regenerate only the records whose
                                             tools changed since the harness was made)`;

/** `agent-seer generate --help`. */
export const usage = `Usage: agent-seer generate <spec-or-config> [options]

Generates an evaluation harness (scenarios, expected calls, mock outputs, multi-turn dialogues)
from a spec snapshot, or from an MCP config file through the snapshot of its server in the
workspace's snapshot folder (agentSeer.snapshotFolder in .vscode/settings.json, default
${SNAPSHOT_FOLDER}). Re-run the same command to resume: finished LLM replies are cached.

Options:
  --server NAME        the server, when the config defines several enabled ones
  --provider P         offline (default, no network), gemini or openai
  --model M            the model (gemini default gemini-2.5-flash-lite; openai needs one)
  --base-url URL       the provider's endpoint (or GEMINI_BASE_URL / OPENAI_BASE_URL)
  --out DIR            the harness folder (default ${HARNESS_FOLDER}/<server>/, named after the
                       config's server, else the snapshot's file name in the snapshot folder,
                       else the spec's name)
  --simple N           simple scenarios requested (default ${DEFAULT_SIMPLE}, at most ${MAX_OPTION.scenarios})
  --complex N          complex scenarios requested (default ${DEFAULT_COMPLEX}, at most ${MAX_OPTION.scenarios})
  --concurrency N      LLM calls in flight (default ${DEFAULT_CONCURRENCY}, at most ${MAX_OPTION.concurrency})
  --rpm N              LLM requests per minute (default: no limit; at most ${MAX_OPTION.rpm})
  --seed S             seed of the offline generator (default ${DEFAULT_SEED})
  --examples FILE      JSON object: tool name → example output(s) for mock outputs
  --fallback F         what stands in for an item the model could not make after 3 tries:
                       none (default: it is discarded and counted) or offline (the offline
                       generator's template, labelled in the record and counted; it still
                       counts as degraded)
  --cache-dir DIR      the LLM reply cache (default <out>/.cache)
${BATCH_USAGE}
  --force              write into a folder that is not this spec's harness
  --only-stale         the spec changed since the harness in --out was generated: diff the two
                       snapshots (the harness's spec.json and this one), regenerate only the
                       records using a changed or removed tool, add scenarios for added tools,
                       and keep every other record file as it is (no LLM call for it). The
                       counts follow the stale records (--simple and --complex are not used)
  --estimate           print the estimated calls, tokens and price (synchronous and batch) of
                       the run and exit 0 without calling anything (no key needed)
  --prices FILE        a price table (JSON, USD per 1M tokens; see the README's "Cost") whose
                       models replace or add to the built-in prices
  --json               print the summary as JSON
  -h, --help           this text

Keys: GEMINI_API_KEY or GOOGLE_API_KEY (gemini), OPENAI_API_KEY (openai).
Exit 0 complete; 1 failed; 2 bad input; 3 partial; 4 pending (--batch --no-wait: jobs still running).`;

/** Runs `generate` on parsed arguments. */
export function run({ values, positionals }: Parsed<typeof options>, io: Io, signal?: AbortSignal): Promise<number> {
  if (positionals.length > 1) throw new UsageError('generate takes one spec or config file');
  return generateCommand(
    {
      input: positionals[0],
      server: values.server,
      provider: values.provider,
      model: values.model,
      baseUrl: values['base-url'],
      out: values.out,
      cacheDir: values['cache-dir'],
      examples: values.examples,
      simple: values.simple,
      complex: values.complex,
      concurrency: values.concurrency,
      rpm: values.rpm,
      seed: values.seed,
      fallback: values.fallback,
      force: values.force,
      onlyStale: values['only-stale'],
      estimate: values.estimate,
      prices: values.prices,
      json: values.json,
      ...batchArgs(values),
    },
    io,
    signal,
  );
}
