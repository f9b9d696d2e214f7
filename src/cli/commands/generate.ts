import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { BatchMode } from '../../core/app/batchMode';
import { resolveCorpus } from '../../core/app/resolveCorpus';
import { resolveSpecPath, type ResolvedSpec } from '../../core/app/resolveSpec';
import { MAX_OPTION } from '../../core/bounds';
import { createProvider, DEFAULT_GEMINI_MODEL, DEFAULT_OPENAI_MODEL, LlmConfigError, type ChatProvider } from '../../core/llm';
import { estimateLine, type Prices } from '../../core/llm/pricing';
import { generate, generationEstimate, modelRunOptions, type GenerationModel } from '../../core/app/generate';
import { diffSummary } from '../../core/harness/specDiff';
import { runCorpus, type CorpusEntry } from '../../core/pipeline/corpus';
import type { PipelineProgress } from '../../core/pipeline/runner';
import {
  DEFAULT_COMPLEX,
  DEFAULT_CONCURRENCY,
  DEFAULT_FALLBACK,
  DEFAULT_SEED,
  DEFAULT_SIMPLE,
  GENERATION_FALLBACKS,
  type GenerationFallback,
} from '../../core/workspace/defaults';
import { CACHE_DIR, HARNESS_FOLDER, SNAPSHOT_FOLDER } from '../../core/workspace/layout';
import { BATCH_OPTIONS, BATCH_USAGE, batchArgs, batchSummaryLine, checkBatchArgs, startBatchMode, type BatchArgs } from '../batchOptions';
import type { OptionTable, Parsed } from '../command';
import { errPaint, EXIT, refusalText, UsageError, worstExit, type Io } from '../errors';
import { formatProblem, relativeTo, shownPath } from '../format';
import {
  corpusProgressView,
  corpusSummaryJson,
  corpusSummaryText,
  outcomeExit,
  pipelineProgressView,
  runExit,
  summaryJson,
  summaryText,
  type CorpusLine,
} from '../generateSummary';
import { startProgress } from '../progress';
import { intOption, outputFolderOption, pathOption, pricesOption, readInputFile } from '../options';
import { requestTimeoutHelp, REQUEST_TIMEOUT_OPTION, requestTimeoutMs, watchedProvider } from '../requestTimeout';

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
  /** `--request-timeout` in seconds. */
  requestTimeout?: string;
  seed?: string;
  /** What stands in for an item the model could not make: none or offline. */
  fallback?: string;
  /** Write into a folder that is not a harness of this spec. */
  force?: boolean;
  /** Regenerate only the records whose tools changed (and add records for new tools). */
  onlyStale?: boolean;
  /** Print the cost estimate and exit without calling anything. */
  estimate?: boolean;
  /** Ask again (new samples) for the items the previous run of the harness discarded. */
  retryDiscarded?: boolean;
  /** A price table (JSON) merged over the built-in one. */
  prices?: string;
  json: boolean;
}

/** The spec named on the command line (app/resolveSpec.ts), with the CLI's ways out added to its problems. */
async function resolveSpec(input: string, server: string | undefined, io: Io): Promise<ResolvedSpec> {
  const file = pathOption('input', input, io.cwd);
  const rel = relativeTo(io.cwd);
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

/** The settings of a generation run common to a single spec and a corpus, checked before any file is read. */
interface GenerationSettings {
  provider: 'offline' | 'gemini' | 'openai';
  simple: number;
  complex: number;
  concurrency: number;
  rpm: number | undefined;
  /** How long an LLM request may go without an answer (`--request-timeout`), in ms. */
  timeoutMs: number;
  seed: number;
  fallback: GenerationFallback;
  /** Batch mode (`--batch`) and how it waits and retries; undefined when off. */
  batch: ReturnType<typeof checkBatchArgs>;
  /** `--retry-discarded`. */
  retryDiscarded: boolean;
}

function generationSettings(args: GenerateArgs, io: Io): GenerationSettings {
  const provider = args.provider;
  if (provider !== 'offline' && provider !== 'gemini' && provider !== 'openai')
    throw new UsageError(`--provider takes offline, gemini or openai, got "${provider}"`);
  if (args.onlyStale && args.force) throw new UsageError('--only-stale keeps the harness in --out and cannot be combined with --force');
  if (args.onlyStale && (args.simple !== undefined || args.complex !== undefined))
    io.err('agent-seer: warning: --simple and --complex are not used with --only-stale (the stale records decide how many scenarios are asked for)');
  const simple = intOption('simple', args.simple, DEFAULT_SIMPLE, 0, MAX_OPTION.scenarios)!;
  const complex = intOption('complex', args.complex, DEFAULT_COMPLEX, 0, MAX_OPTION.scenarios)!;
  const concurrency = intOption('concurrency', args.concurrency, DEFAULT_CONCURRENCY, 1, MAX_OPTION.concurrency)!;
  const rpm = intOption('rpm', args.rpm, undefined, 1, MAX_OPTION.rpm);
  const seed = intOption('seed', args.seed, DEFAULT_SEED, 0)!;
  const timeoutMs = requestTimeoutMs(args.requestTimeout);
  const fallback = args.fallback ?? DEFAULT_FALLBACK;
  if (!(GENERATION_FALLBACKS as readonly string[]).includes(fallback))
    throw new UsageError(`--fallback takes ${GENERATION_FALLBACKS.join(' or ')}, got "${fallback}"`);
  if (provider === 'offline' && args.fallback !== undefined) io.err('agent-seer: warning: --fallback is ignored with --provider offline');
  const batch = checkBatchArgs(args, provider !== 'offline');
  if (batch && rpm !== undefined) io.err('agent-seer: warning: --rpm is not used with --batch (the provider paces its batch jobs)');
  if (args.retryDiscarded && provider === 'offline') throw new UsageError('--retry-discarded asks a model again: it needs --provider gemini or openai');
  return {
    provider,
    simple,
    complex,
    concurrency,
    rpm,
    timeoutMs,
    seed,
    fallback: fallback as GenerationFallback,
    batch,
    retryDiscarded: args.retryDiscarded === true,
  };
}

/**
 * The chat provider of an LLM run (undefined offline), wrapped in the batch engine with `--batch`
 * (its journal under `where.cacheDir`), else watched for calls that take long (`stopWatch` ends
 * that); a missing key or model is bad input.
 */
function chatProviderOf(
  args: GenerateArgs,
  settings: GenerationSettings,
  where: { cacheDir: string; statusFolder: string },
  io: Io,
): { chat?: ChatProvider; batch?: BatchMode; stopWatch?: () => void } {
  const provider = settings.provider;
  if (provider === 'offline') {
    if (args.model || args.baseUrl) io.err('agent-seer: warning: --model and --base-url are ignored with --provider offline');
    if (args.requestTimeout !== undefined) io.err('agent-seer: warning: --request-timeout is ignored with --provider offline');
    return {};
  }
  const config = { provider, model: args.model, baseUrl: args.baseUrl, env: io.env } as const;
  let chat: ChatProvider;
  try {
    chat = createProvider(config);
  } catch (e) {
    if (e instanceof LlmConfigError) throw new UsageError(e.message);
    throw e;
  }
  if (!settings.batch) {
    const watched = watchedProvider(chat, settings.timeoutMs, io);
    return { chat: watched.chat, stopWatch: watched.stop };
  }
  const batch = startBatchMode(settings.batch, config, chat, where, io);
  return { chat: batch.chat, batch };
}

/** `--estimate`: the estimate printed, nothing called (no provider built, no key needed). */
function printEstimate(spec: ResolvedSpec['spec'], args: GenerateArgs, settings: GenerationSettings, prices: Prices, io: Io): number {
  const provider = settings.provider;
  if (provider === 'offline') {
    io.out(args.json ? JSON.stringify({ estimate: null, provider }, null, 2) : 'estimate: 0 calls, $0.00 — the offline generator makes no LLM call');
    return EXIT.ok;
  }
  const model = args.model ?? (provider === 'gemini' ? DEFAULT_GEMINI_MODEL : DEFAULT_OPENAI_MODEL);
  const estimate = generationEstimate(spec, { id: provider, model }, { simple: settings.simple, complex: settings.complex }, prices);
  io.out(args.json ? JSON.stringify({ estimate }, null, 2) : estimateLine(estimate));
  return EXIT.ok;
}

/** `agent-seer generate <spec-or-config> [options]` */
export async function generateCommand(args: GenerateArgs, io: Io, signal?: AbortSignal): Promise<number> {
  if (!args.input) throw new UsageError('generate needs a spec snapshot or an MCP config file');
  const settings = generationSettings(args, io);
  const { simple, complex, concurrency, rpm, seed, fallback } = settings;
  if (args.onlyStale && args.estimate) throw new UsageError('--estimate estimates a full run and cannot be combined with --only-stale');
  const { spec, harnessName } = await resolveSpec(args.input, args.server, io);
  if (spec.tools.length === 0) throw new UsageError(`${args.input}: the spec has no tools`);
  const outDir = args.out !== undefined ? await outputFolderOption('--out', args.out, io.cwd) : resolve(io.cwd, HARNESS_FOLDER, harnessName);
  const cacheDir = args.cacheDir !== undefined ? pathOption('--cache-dir', args.cacheDir, io.cwd) : undefined;
  const exampleOutputs = args.examples ? await readExamples(args.examples, io) : undefined;
  const prices = await pricesOption(args.prices, io.cwd);
  if (args.estimate) return printEstimate(spec, args, settings, prices, io);
  const { chat, batch, stopWatch } = chatProviderOf(
    args,
    settings,
    { cacheDir: cacheDir ?? join(outDir, CACHE_DIR), statusFolder: shownPath(io.cwd, outDir) },
    io,
  );

  const progress = startProgress(io, 'generate');
  const onProgress = (p: PipelineProgress): void => {
    const v = pipelineProgressView(p);
    progress.update(v.stage, v.done, v.total, v.detail);
  };
  const generator = chat ? `${chat.id} ${chat.model}` : 'the offline generator';
  const model: GenerationModel | undefined = chat && {
    chat,
    ...(batch ? { batch } : {}),
    ...(cacheDir ? { cacheDir } : {}),
    timeoutMs: settings.timeoutMs,
    prices,
  };
  if (args.onlyStale) io.err(`agent-seer: regenerating the stale records of ${shownPath(io.cwd, outDir)} for "${spec.name}" with ${generator}…`);
  else io.err(`agent-seer: generating for "${spec.name}" (${spec.tools.length} tools) with ${generator}${batch ? ' in batch mode' : ''}…`);
  let outcome: Awaited<ReturnType<typeof generate>>;
  try {
    outcome = await generate({
      spec,
      outDir,
      ...(model ? { model } : {}),
      settings: { simple, complex, concurrency, ...(rpm !== undefined ? { rpm } : {}), seed, fallback, retryDiscarded: settings.retryDiscarded },
      ...(args.onlyStale ? { onlyStale: true } : {}),
      ...(args.force ? { force: true } : {}),
      ...(exampleOutputs ? { exampleOutputs } : {}),
      ...(signal ? { signal } : {}),
      onProgress,
      onEstimate: (estimate) => io.err(`agent-seer: ${estimateLine(estimate)}`),
    });
  } finally {
    progress.end();
    stopWatch?.();
  }
  const result = outcome.result;
  if ('diff' in result)
    io.err(
      `agent-seer: spec changes: ${diffSummary(result.diff)}; ${result.stale} stale record${result.stale === 1 ? '' : 's'}, ${result.kept} kept as they were`,
    );
  const paint = errPaint(io);
  if (result.status === 'failed') io.err(`agent-seer: generation ${paint.bad('failed')}: ${result.error ?? 'unknown error'}`);
  if (result.status === 'partial') io.err(`agent-seer: generation ${paint.warn('partial')}: ${result.error ?? 'unknown reason'}`);
  if (result.status === 'empty') io.err(`agent-seer: generation ${paint.warn('empty')}: ${result.error ?? '0 records'}`);
  const batchSummary = outcome.batch;
  const batchLine = batchSummary ? batchSummaryLine(batchSummary) : undefined;
  io.out(
    args.json
      ? JSON.stringify({ ...summaryJson(result), ...(batchSummary ? { batch: batchSummary } : {}) }, null, 2)
      : [summaryText(result, io), ...(batchLine !== undefined ? [batchLine] : [])].join('\n'),
  );
  return runExit(result);
}

/**
 * `agent-seer generate <spec…|folder…> [options]`: a corpus, one harness folder per spec under
 * --out (default the harness folder), every spec's run in this process on one provider and one
 * call guard (`runCorpus`). Exit: the worst of the specs' codes.
 */
export async function generateCorpusCommand(inputs: readonly string[], args: GenerateArgs, io: Io, signal?: AbortSignal): Promise<number> {
  const settings = generationSettings(args, io);
  if (args.server !== undefined) throw new UsageError('--server names one server of a config: generate it alone (a corpus takes spec files and folders)');
  if (args.onlyStale) throw new UsageError('--only-stale regenerates one harness: run it for each spec');
  if (args.examples !== undefined) throw new UsageError("--examples names one spec's tools: generate that spec alone");
  if (args.estimate) throw new UsageError('--estimate estimates one spec: run it for each spec');
  const rel = relativeTo(io.cwd);
  const resolution = await resolveCorpus(
    inputs.map((i) => pathOption('input', i, io.cwd)),
    { workspaceRoots: [io.cwd] },
  );
  if (!resolution.ok) {
    const d = resolution.duplicates;
    if (d)
      throw new UsageError(
        `${d.map((x) => `${rel(x.files[0])} and ${rel(x.files[1])} would both be generated into the harness folder "${x.harnessName}"`).join('; ')}: generate ${d.length === 1 ? 'one of them' : 'one of each pair'} alone with --out`,
      );
    throw new UsageError(formatProblem(resolution.problem, rel));
  }
  for (const w of resolution.warnings) io.err(`agent-seer: warning: ${w}`);
  for (const s of resolution.skipped) io.err(`agent-seer: skipped ${rel(s.file)}: ${s.reason}`);
  const outRoot = args.out !== undefined ? await outputFolderOption('--out', args.out, io.cwd) : resolve(io.cwd, HARNESS_FOLDER);
  const cacheRoot = args.cacheDir !== undefined ? pathOption('--cache-dir', args.cacheDir, io.cwd) : undefined;
  const prices = await pricesOption(args.prices, io.cwd);
  // One engine for the corpus, its journal in the output folder's cache: jobs hold items of several specs.
  const { chat, batch, stopWatch } = chatProviderOf(args, settings, { cacheDir: cacheRoot ?? join(outRoot, CACHE_DIR), statusFolder: rel(outRoot) }, io);
  const specs = resolution.specs;
  const entries: CorpusEntry[] = specs.map((s) => ({
    spec: s.spec,
    outDir: join(outRoot, s.harnessName),
    // Each spec's cache stays its own, as in a single run: under --cache-dir, a folder per harness.
    ...(cacheRoot ? { cacheDir: join(cacheRoot, s.harnessName) } : {}),
  }));
  const progress = startProgress(io, 'generate');
  const latest: (PipelineProgress | undefined)[] = specs.map(() => undefined);
  let ended = 0;
  const show = (): void => {
    const v = corpusProgressView(latest, ended);
    progress.update(v.stage, v.done, v.total, v.detail);
  };
  const onProgress = (i: number, p: PipelineProgress): void => {
    latest[i] = p;
    show();
  };
  const onSpecEnd = (): void => {
    ended++;
    show();
  };
  const generator = chat ? `${chat.id} ${chat.model}` : 'the offline generator';
  const tools = specs.reduce((n, s) => n + s.spec.tools.length, 0);
  io.err(`agent-seer: generating for ${specs.length} specs (${tools} tools) into ${rel(outRoot)} with ${generator}${batch ? ' in batch mode' : ''}…`);
  let result: Awaited<ReturnType<typeof runCorpus>>;
  try {
    result = await runCorpus(entries, {
      // One model for every spec, limited and priced as a single run's.
      ...modelRunOptions(chat && { chat, ...(batch ? { batch } : {}), timeoutMs: settings.timeoutMs, prices }, settings),
      seed: settings.seed,
      simple: settings.simple,
      complex: settings.complex,
      fallback: settings.fallback,
      ...(settings.retryDiscarded ? { retryDiscarded: true } : {}),
      ...(args.force ? { force: true } : {}),
      ...(signal ? { signal } : {}),
      onProgress,
      onSpecEnd,
    });
  } finally {
    progress.end();
    stopWatch?.();
    await batch?.chat.close();
  }
  const batchSummary = batch?.chat.summary();
  const batchLine = batchSummary ? batchSummaryLine(batchSummary) : undefined;
  const lines: CorpusLine[] = specs.map((s, i) => ({ file: rel(s.file), harness: s.harnessName, outcome: result.outcomes[i]! }));
  for (const l of lines) {
    const o = l.outcome;
    if (o.kind === 'refused') io.err(`agent-seer: ${l.harness}: ${refusalText(o.error)}`);
    else if (o.kind === 'error') io.err(`agent-seer: ${l.harness}: generation failed: ${o.message}`);
    else if (o.result.status === 'failed') io.err(`agent-seer: ${l.harness}: generation failed: ${o.result.error ?? 'unknown error'}`);
    else if (o.result.status === 'partial') io.err(`agent-seer: ${l.harness}: generation partial: ${o.result.error ?? 'unknown reason'}`);
  }
  io.out(
    args.json
      ? JSON.stringify(
          corpusSummaryJson(
            lines,
            result,
            outRoot,
            resolution.skipped.map((s) => ({ file: rel(s.file), reason: s.reason })),
            batchSummary,
          ),
          null,
          2,
        )
      : [corpusSummaryText(lines, result, outRoot, generator, io), ...(batchLine !== undefined ? [batchLine] : [])].join('\n'),
  );
  return worstExit(result.outcomes.map(outcomeExit));
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
  'retry-discarded': { type: 'boolean', default: false },
  prices: { type: 'string' },
  json: { type: 'boolean', default: false },
  ...REQUEST_TIMEOUT_OPTION,
  ...BATCH_OPTIONS,
} as const satisfies OptionTable;

/** Its lines in the top-level help. */
export const synopsis = `  agent-seer generate <spec-or-config | spec… | folder…> [--server NAME]
                     [--provider offline|gemini|openai]
                     [--model M] [--base-url URL] [--out DIR] [--simple N] [--complex N]
                     [--concurrency N] [--rpm N] [--request-timeout S] [--seed S] [--examples FILE]
                     [--fallback none|offline] [--batch [--no-wait] [--batch-retry R]]
                     [--cache-dir DIR] [--force] [--only-stale] [--estimate] [--retry-discarded]
                     [--prices FILE] [--json]
                                             generate an evaluation harness (default: offline,
                                             into ${HARNESS_FOLDER}/<server>/; keys from GEMINI_API_KEY or
                                             OPENAI_API_KEY; re-run to resume an LLM run;
                                             --force: write into a folder that is not this
                                             spec's harness;
                                             --only-stale: regenerate only the records whose
                                             tools changed since the harness was made; several
                                             specs or a folder: a corpus, one harness each
                                             under --out, sharing the provider's limits)`;

/** `agent-seer generate --help`. */
export const usage = `Usage: agent-seer generate <spec-or-config> [options]
       agent-seer generate <spec…|folder…> [options]

Generates an evaluation harness (scenarios, expected calls, mock outputs, multi-turn dialogues)
from a spec snapshot, or from an MCP config file through the snapshot of its server in the
workspace's snapshot folder (agentSeer.snapshotFolder in .vscode/settings.json, default
${SNAPSHOT_FOLDER}). Re-run the same command to resume an LLM run: finished LLM replies are
cached. An offline run makes no calls and is deterministic: a re-run makes it again from the
start (each record is written as soon as it is made, so a stopped run keeps what it wrote).

A corpus: several spec files, or a folder (every *.json directly in it that is a spec with
tools; the other files are skipped, each said on stderr). One harness folder per spec under
--out (default ${HARNESS_FOLDER}/), named as a single run names it; two specs with one name are
refused. Every spec runs in this process on one provider: --concurrency and --rpm bound the
whole corpus, and each spec keeps its own reply cache in its harness folder (or
<cache-dir>/<harness>/). A line per spec and a total are printed; the exit code is the worst
of the specs'. Config files, --server, --examples and --only-stale take one spec.

Options:
  --server NAME        the server, when the config defines several enabled ones
  --provider P         offline (default, no network), gemini or openai
  --model M            the model (gemini default gemini-2.5-flash-lite; openai needs one)
  --base-url URL       the provider's endpoint (or GEMINI_BASE_URL / OPENAI_BASE_URL)
  --out DIR            the harness folder (default ${HARNESS_FOLDER}/<server>/, named after the
                       config's server, else the snapshot's file name in the snapshot folder,
                       else the spec's name); for a corpus, the folder of the harness folders
  --simple N           simple scenarios requested (default ${DEFAULT_SIMPLE}, at most ${MAX_OPTION.scenarios})
  --complex N          complex scenarios requested (default ${DEFAULT_COMPLEX}, at most ${MAX_OPTION.scenarios})
  --concurrency N      LLM calls in flight (default ${DEFAULT_CONCURRENCY}, at most ${MAX_OPTION.concurrency}); a corpus's, not each spec's
  --rpm N              LLM requests per minute (default: no limit; at most ${MAX_OPTION.rpm}); a corpus's
${requestTimeoutHelp(23)}
  --seed S             seed of the offline generator (default ${DEFAULT_SEED})
  --examples FILE      JSON object: tool name → example output(s) for mock outputs
  --fallback F         what stands in for an item the model could not make after 3 tries:
                       none (default: it is discarded and counted) or offline (the offline
                       generator's template, labelled in the record and counted; it still
                       counts as degraded)
  --cache-dir DIR      the LLM reply cache (default <out>/.cache; a corpus: <DIR>/<harness>)
  --retry-discarded    ask again for the items the previous run of this harness discarded
                       (a plain re-run makes no call for them: their discards are cached); each
                       is asked as a new sample, never answered with the reply that was discarded
${BATCH_USAGE}
                       (a corpus: one engine, its jobs in <out>/.cache/batch, shared by the specs)
  --force              write into a folder that is not this spec's harness
  --only-stale         the spec changed since the harness in --out was generated: diff the two
                       snapshots (the harness's spec.json and this one), regenerate only the
                       records using a changed or removed tool, add scenarios for added tools,
                       and keep every other record file as it is (no LLM call for it). The
                       counts follow the stale records (--simple and --complex are not used)
  --estimate           print the estimated calls, tokens and price (synchronous and batch) of
                       the run and exit 0 without calling anything (no key needed; one spec)
  --prices FILE        a price table (JSON, USD per 1M tokens; see docs/llm.md, "Cost") whose
                       models replace or add to the built-in prices
  --json               print the summary as JSON (a corpus: an object per spec and the total)
  -h, --help           this text

Keys: GEMINI_API_KEY or GOOGLE_API_KEY (gemini), OPENAI_API_KEY (openai).
Exit 0 complete; 1 failed; 2 bad input; 3 partial; 4 pending (--batch --no-wait: jobs still
running); 5 empty (the run wrote 0 records, e.g. every tool was skipped: the summary says why).
A corpus: the worst of its specs' (2, then 1, then 4, then 5, then 3).`;

/** A corpus: several inputs, or one that is a folder. One file is a single run, as it always was. */
async function isCorpus(positionals: readonly string[], cwd: string): Promise<boolean> {
  if (positionals.length !== 1) return positionals.length > 1;
  return stat(resolve(cwd, positionals[0]!)).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

/** Runs `generate` on parsed arguments. */
export async function run({ values, positionals }: Parsed<typeof options>, io: Io, signal?: AbortSignal): Promise<number> {
  const args: GenerateArgs = {
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
    requestTimeout: values['request-timeout'],
    seed: values.seed,
    fallback: values.fallback,
    force: values.force,
    onlyStale: values['only-stale'],
    estimate: values.estimate,
    retryDiscarded: values['retry-discarded'],
    prices: values.prices,
    json: values.json,
    ...batchArgs(values),
  };
  return (await isCorpus(positionals, io.cwd)) ? generateCorpusCommand(positionals, args, io, signal) : generateCommand(args, io, signal);
}
