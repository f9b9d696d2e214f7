import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { MAX_OPTION } from '../../core/bounds';
import { findHarnessSpec } from '../../core/harness/specLookup';
import { judgeHarness, OFFLINE_JUDGE_ID, type HarnessJudge, type JudgeHarnessResult, type JudgeProgress, type JudgeSummary } from '../../core/judge';
import { readHarness } from '../../core/harness/store';
import { createLlmClient } from '../../core/llm/client';
import { requestTimeoutHelp, REQUEST_TIMEOUT_OPTION, requestTimeoutMs, watchedProvider } from '../requestTimeout';
import {
  createProvider,
  DEFAULT_GEMINI_JUDGE_MODEL,
  DEFAULT_OPENAI_MODEL,
  LlmConfigError,
  LlmQuotaError,
  LlmStopError,
  type ChatProvider,
} from '../../core/llm';
import { BatchPendingError } from '../../core/llm/batch';
import { costOf, estimateLine, formatEstimateUsd, formatUsd, priceOf, type CostEstimate, type CostMode, type Prices } from '../../core/llm/pricing';
import { estimateJudging, type JudgeToEstimate } from '../../core/judge/estimate';
import { BATCH_CONCURRENCY, DEFAULT_CONCURRENCY } from '../../core/workspace/defaults';
import { CACHE_DIR, RECORDS_DIR } from '../../core/workspace/layout';
import type { OptionTable, Parsed } from '../command';
import { EXIT, UsageError, worstExit, type Io } from '../errors';
import { relativeTo } from '../format';
import { intOption, pathOption, pricesOption, providerModelOption } from '../options';
import { renderTable, tableLook, type TableLook } from '../table';
import { EXACT_CANNOT_SEE, EXACT_COVERS } from '../../core/report/exactScope';
import { BATCH_OPTIONS, BATCH_USAGE, batchArgs, batchSummaryLine, checkBatchArgs, startBatchMode, type BatchArgs } from '../batchOptions';
import type { BatchProvider } from '../../core/llm/batch';
import { determinacyRate, JUDGE_SARIF_RULES, judgeCiFindings, judgeJunitSuites, meanExactScore } from '../../core/ci/judgeCi';
import { gateFailures, type Gate } from '../../core/ci/gates';
import { inGithubActions, sarifLog, sarifText } from '../../core/ci/sarif';
import type { Spec } from '../../core/spec/model';
import { gateExit, judgedHarnessOf, printAnnotations, scoreOption, writeCiFile, writeJunitFile } from '../ciOutputs';
import { startProgress } from '../progress';

/** Raw options of `agent-seer judge`, as parsed from the command line. */
export interface JudgeArgs extends BatchArgs {
  dir?: string;
  /** `offline`, `gemini`, `gemini:MODEL`, `openai:MODEL`; repeatable. Default `offline`. */
  judges: string[];
  baseUrl?: string;
  spec?: string;
  concurrency?: string;
  rpm?: string;
  /** `--request-timeout` in seconds. */
  requestTimeout?: string;
  cacheDir?: string;
  force: boolean;
  /** Print the cost estimate and exit without calling anything. */
  estimate?: boolean;
  /** A price table (JSON) merged over the built-in one. */
  prices?: string;
  json: boolean;
  /** `--junit FILE`: one test case per record view. */
  junit?: string;
  /** `--sarif FILE`: the findings in the record files. */
  sarif?: string;
  /** `--min-exact X`, `--min-determinacy X`: offline gates. */
  minExact?: string;
  minDeterminacy?: string;
}

/** The CI options of `judge` at work: the files to write and the bars, checked before any judging. */
interface JudgeCi {
  junit?: string;
  sarif?: string;
  minExact?: number;
  minDeterminacy?: number;
}

/**
 * The judged harness read back (records, files, texts) for the CI outputs and gates: the JUnit
 * and SARIF files, GitHub annotations, and one line per failed bar. Returns those lines.
 */
async function judgeCiOutputs(dir: string, spec: Spec, judgeIds: readonly string[], ci: JudgeCi, io: Io, json: boolean): Promise<string[]> {
  const read = await readHarness(dir);
  const h = await judgedHarnessOf(dir, read, spec);
  if (ci.junit !== undefined) await writeJunitFile(ci.junit, judgeJunitSuites(h, judgeIds), io);
  if (ci.sarif !== undefined || inGithubActions(io.env)) {
    const findings = judgeCiFindings(h, judgeIds);
    if (ci.sarif !== undefined)
      await writeCiFile('--sarif', ci.sarif, sarifText(sarifLog({ tool: 'agent-seer judge', rules: JUDGE_SARIF_RULES, findings, baseDir: io.cwd })), io);
    printAnnotations(findings, io, { json });
  }
  // The bars read the offline judge when it ran (its exact score is what works without a key), else the first judge.
  const gateJudge = judgeIds.includes(OFFLINE_JUDGE_ID) ? OFFLINE_JUDGE_ID : judgeIds[0];
  const gates: Gate[] = [];
  if (gateJudge !== undefined && ci.minExact !== undefined)
    gates.push({ flag: '--min-exact', what: `exact score (${gateJudge})`, min: ci.minExact, value: meanExactScore(read.records, gateJudge) });
  if (gateJudge !== undefined && ci.minDeterminacy !== undefined)
    gates.push({
      flag: '--min-determinacy',
      what: `determined share of values (${gateJudge})`,
      min: ci.minDeterminacy,
      value: determinacyRate(read.records, gateJudge),
    });
  return gateFailures(gates);
}

/** A `--judge` value as provider and model: `gemini` alone means the paper's judge, gemini-2.5-flash. */
export function parseJudgeOption(raw: string): { provider: 'offline' } | { provider: 'gemini' | 'openai'; model?: string } {
  if (raw.trim() === OFFLINE_JUDGE_ID) return { provider: 'offline' };
  const { provider, model } = providerModelOption('--judge', raw, 'offline, gemini[:MODEL] or openai:MODEL');
  return { provider, model: model ?? (provider === 'gemini' ? DEFAULT_GEMINI_JUDGE_MODEL : undefined) };
}

const fixed = (x: number | null): string => (x === null ? '–' : x.toFixed(3));

/** The text summary: one row per judge. */
export function judgeSummaryText(r: JudgeHarnessResult, dir: string, look: TableLook = {}): string {
  // The LLM's accounting is a line per LLM judge under the table, so the table fits 100 columns.
  const lines = [
    `Judged ${r.records} record${r.records === 1 ? '' : 's'} in ${dir}`,
    renderTable(
      ['judge', 'judged', 'not judged', 'up to date', 'mean TC', 'mean Coh', 'exact args', 'disagree'],
      r.judges.map((j: JudgeSummary) => [j.id, j.judged, j.notJudged, j.skipped, fixed(j.meanTc), fixed(j.meanCoh), fixed(j.meanExact), j.disagreements]),
      look,
    ),
    ...r.judges
      .filter((j) => j.id !== OFFLINE_JUDGE_ID)
      .map((j) => `${j.id}: ${j.llmCalls} LLM calls, ${j.cacheHits} cached, ${j.inputTokens} tokens in, ${j.outputTokens} out`),
  ];
  if (r.judges.some((j) => j.id === OFFLINE_JUDGE_ID)) {
    // An exact score of 1.000 means every check passed, not that the harness is good: say what it cannot see.
    const llm = r.judges.some((j) => j.id !== OFFLINE_JUDGE_ID);
    lines.push(
      `"exact args" (offline) = a program's checks of ${EXACT_COVERS}; not TC and not a quality score: it cannot see ${EXACT_CANNOT_SEE}. Those need an LLM judge${llm ? '' : `: add --judge gemini:${DEFAULT_GEMINI_JUDGE_MODEL}`}.`,
    );
  }
  for (const j of r.judges) {
    if (j.id === OFFLINE_JUDGE_ID) continue;
    // Counted from the stored judgments, over views (a record with a conversation is judged as its single-turn task and as the conversation).
    lines.push(`scored by ${j.id}: tool calling on ${j.scoredTc} of ${j.views} records (views), coherence on ${j.scoredCoh} of ${j.views}`);
  }
  for (const j of r.judges) {
    if (j.notJudged === 0) continue;
    const attempted = j.judged + j.notJudged;
    lines.push(`not judged: ${j.notJudged} of ${attempted} records (${j.id})${j.judged === 0 ? `: no record was judged by ${j.id}` : ''}`);
  }
  if (r.judges.some((j) => j.notJudged > 0)) lines.push('Records not judged keep tc/coh null and a note saying why; re-run to try them again.');
  return lines.join('\n');
}

/** One LLM judge's cost: the estimate made before, and its requests priced after. */
export interface JudgeCost {
  judge: string;
  estimate?: CostEstimate;
  actual: { usd: number | null; mode: CostMode; prices: Prices['from'] };
}

/** The cost of each LLM judge of a finished run, from its summary's tokens. */
export function judgeCosts(
  r: JudgeHarnessResult,
  judges: readonly JudgeToEstimate[],
  prices: Prices,
  estimates: readonly CostEstimate[],
  mode: CostMode = 'sync',
): JudgeCost[] {
  return judges.flatMap((j, i) => {
    const s = r.judges.find((x) => x.id === j.id);
    if (!s) return [];
    const usd = costOf(s, priceOf(prices.table, j.model, j.provider), mode);
    const estimate = estimates[i];
    return [{ judge: j.id, ...(estimate ? { estimate } : {}), actual: { usd, mode, prices: prices.from } }];
  });
}

/** `cost (gemini:gemini-2.5-flash): $0.0123 (sync, prices of 2026-12-02); estimated ≈$0.0150 (batch ≈$0.0075) for 40 calls` */
export function judgeCostText(c: JudgeCost): string {
  const p = c.actual.prices;
  const prices = p.source === 'built-in' ? `prices of ${p.date}` : `prices of ${p.date} from ${p.source}`;
  const e = c.estimate;
  return `cost (${c.judge}): ${formatUsd(c.actual.usd)} (${c.actual.mode}, ${prices})${e ? `; estimated ${formatEstimateUsd(e.usd, e.batchUsd)} for ${e.calls.toLocaleString('en-US')} calls` : ''}`;
}

/**
 * The exit code of a judge run, by the rule generation follows: a judge that judged nothing it
 * tried (an outage) fails the run (1); some records not judged make it partial (3). Stricter than
 * generation's 10% limit: every judgment is a result, and a missing one is never hidden.
 */
export function judgeExitCode(r: JudgeHarnessResult): number {
  if (r.judges.some((j) => j.notJudged > 0 && j.judged === 0)) return EXIT.failed;
  return r.judges.some((j) => j.notJudged > 0) ? EXIT.partial : EXIT.ok;
}

/**
 * `agent-seer judge <harness-dir> [--judge provider:model]… [--base-url URL] [--spec FILE]
 * [--concurrency N] [--rpm N] [--cache-dir DIR] [--force] [--json]`
 *
 * Exit 0 when every record is judged (or already was); 1 when the run failed, a judge judged
 * none of the records it tried (an outage), or some file of the harness could not be read (each
 * is named on stderr, one line with the reason); 3 when some records could not be judged; 5 when
 * the harness holds 0 records; 2 for bad input (no harness, no spec, bad options, no key). A
 * quota error stops the run at once; `--json` still prints what was judged before it.
 */
export async function judgeCommand(args: JudgeArgs, io: Io, signal?: AbortSignal): Promise<number> {
  if (!args.dir) throw new UsageError('judge needs a harness folder (one with manifest.json and records/)');
  const dir = pathOption('harness folder', args.dir, io.cwd);
  const rel = relativeTo(io.cwd);
  const isDir = await stat(join(dir, RECORDS_DIR)).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir) throw new UsageError(`${args.dir}: not a harness folder (no records/ inside)`);
  const concurrency = intOption('concurrency', args.concurrency, DEFAULT_CONCURRENCY, 1, MAX_OPTION.concurrency) ?? DEFAULT_CONCURRENCY;
  const rpm = intOption('rpm', args.rpm, undefined, 1, MAX_OPTION.rpm);
  const timeoutMs = requestTimeoutMs(args.requestTimeout);
  const watches: (() => void)[] = [];

  const ci: JudgeCi = {
    ...(args.junit !== undefined ? { junit: args.junit } : {}),
    ...(args.sarif !== undefined ? { sarif: args.sarif } : {}),
  };
  const minExact = scoreOption('--min-exact', args.minExact);
  const minDeterminacy = scoreOption('--min-determinacy', args.minDeterminacy);
  if (minExact !== undefined) ci.minExact = minExact;
  if (minDeterminacy !== undefined) ci.minDeterminacy = minDeterminacy;
  const wantsCi = Object.keys(ci).length > 0 || inGithubActions(io.env);

  const wanted = args.judges.length ? args.judges : [OFFLINE_JUDGE_ID];
  const cacheDir = args.cacheDir !== undefined ? pathOption('--cache-dir', args.cacheDir, io.cwd) : join(dir, CACHE_DIR);
  const batchSettings = checkBatchArgs(
    args,
    wanted.some((raw) => parseJudgeOption(raw).provider !== 'offline'),
  );
  if (batchSettings && rpm !== undefined) io.err('agent-seer: warning: --rpm is not used with --batch (the provider paces its batch jobs)');
  const batches: BatchProvider[] = [];
  const prices = await pricesOption(args.prices, io.cwd);
  const judges: HarnessJudge[] = [];
  const llmJudges: JudgeToEstimate[] = [];
  for (const raw of wanted) {
    const parsed = parseJudgeOption(raw);
    let judge: HarnessJudge;
    if (parsed.provider === 'offline') judge = { id: OFFLINE_JUDGE_ID };
    else if (args.estimate) {
      // Nothing is built that could call out: no provider, no key needed.
      const model = parsed.model ?? DEFAULT_OPENAI_MODEL;
      judge = { id: `${parsed.provider}:${model}` };
      llmJudges.push({ id: judge.id, provider: parsed.provider, model });
    } else {
      let provider: ChatProvider;
      const config = { provider: parsed.provider, model: parsed.model, baseUrl: args.baseUrl, env: io.env };
      try {
        provider = createProvider(config);
      } catch (e) {
        if (e instanceof LlmConfigError) throw new UsageError(e.message);
        throw e;
      }
      const id = `${provider.id}:${provider.model}`;
      if (batchSettings) {
        const batch = startBatchMode(batchSettings, config, provider, { cacheDir, statusFolder: rel(dir) }, io);
        batches.push(batch.chat);
        const { llm } = createLlmClient({ chat: batch.chat, role: 'judge', cacheDir, limits: batch.limits });
        judge = { id, llm };
      } else {
        const watched = watchedProvider(provider, timeoutMs, io);
        watches.push(watched.stop);
        const { llm } = createLlmClient({
          chat: watched.chat,
          role: 'judge',
          cacheDir,
          concurrency,
          ...(rpm !== undefined ? { rpm } : {}),
          limits: { timeoutMs },
        });
        judge = { id, llm };
      }
      llmJudges.push({ id, provider: provider.id, model: provider.model });
    }
    if (judges.some((j) => j.id === judge.id)) throw new UsageError(`--judge ${raw} is given twice`);
    judges.push(judge);
  }

  const harness = await readHarness(dir);
  const manifest = harness.manifest;
  const found = await findHarnessSpec(dir, manifest, {
    ...(args.spec !== undefined ? { specFile: pathOption('--spec', args.spec, io.cwd) } : {}),
    cwd: io.cwd,
  });
  if (!found.ok) throw new UsageError(found.notFound ? `${found.error}: pass --spec FILE` : found.error);
  for (const w of found.warnings) io.err(`agent-seer: warning: ${w}`);

  const estimates = llmJudges.length ? estimateJudging(harness.records, found.spec, llmJudges, { prices, force: args.force }) : [];
  if (args.estimate) {
    if (args.json) io.out(JSON.stringify({ estimates: llmJudges.map((j, i) => ({ judge: j.id, estimate: estimates[i] })) }, null, 2));
    else
      io.out(
        llmJudges.length
          ? estimates.map((e, i) => `${estimateLine(e)} (judge ${llmJudges[i]!.id})`).join('\n')
          : 'estimate: 0 calls, $0.00 — the offline judge makes no LLM call',
      );
    return EXIT.ok;
  }
  estimates.forEach((e, i) => io.err(`agent-seer: ${estimateLine(e)} (judge ${llmJudges[i]!.id})`));

  io.err(`agent-seer: judging ${rel(dir)} against ${rel(found.file)} with ${judges.map((j) => j.id).join(', ')}…`);
  const progress = startProgress(io, 'judge');
  const showProgress = (p: JudgeProgress): void =>
    progress.update(
      'records',
      p.done,
      p.total,
      `${p.recordId} · ${p.judgeId} · ${p.outcome}${p.tc !== null ? ` · TC ${p.tc.toFixed(2)}` : ''}${p.coh !== null ? ` · Coh ${p.coh.toFixed(2)}` : ''}`,
    );
  // Counted here too, so a run a quota or an outage stops still has its summary (judgeHarness rejects then).
  const sofar = new Map(judges.map((j) => [j.id, { id: j.id, judged: 0, notJudged: 0, skipped: 0 }]));
  const onProgress = (p: JudgeProgress): void => {
    const c = sofar.get(p.judgeId);
    if (c) c[p.outcome === 'judged' ? 'judged' : p.outcome === 'skipped' ? 'skipped' : 'notJudged']++;
    if (p.outcome === 'not-judged') io.err(`judge: ${p.recordId} (${p.judgeId}): not judged (see the record's notes)`);
    showProgress(p);
  };
  /** The `--json` summary of a run that ended early: what was judged before it stopped, and why it stopped. */
  const stoppedJson = (status: 'cancelled' | 'pending' | 'stopped', error: string, extra: Record<string, unknown> = {}): void => {
    if (!args.json) return;
    const exitCode = status === 'pending' ? EXIT.pending : EXIT.failed;
    io.out(JSON.stringify({ dir, spec: found.file, status, ...extra, error, exitCode, records: harness.records.length, judges: [...sofar.values()] }, null, 2));
  };
  let result: JudgeHarnessResult;
  try {
    // In batch mode every record's request must reach the engine together to share a job.
    const workers = batches.length ? BATCH_CONCURRENCY : concurrency;
    result = await judgeHarness(dir, { judges, spec: found.spec, concurrency: workers, force: args.force, onProgress, ...(signal ? { signal } : {}) });
  } catch (e) {
    if (signal?.aborted) {
      io.err('agent-seer: cancelled; finished judgments are saved, re-run to continue');
      stoppedJson('cancelled', 'cancelled');
      return EXIT.failed;
    }
    if (e instanceof BatchPendingError) {
      io.err(`agent-seer: ${e.message}`);
      io.err('agent-seer: finished judgments are saved.');
      stoppedJson('pending', e.message);
      return EXIT.pending;
    }
    if (e instanceof LlmStopError) {
      io.err(`agent-seer: stopped: ${e.message}`);
      io.err(`agent-seer: finished judgments are saved; re-run the same command once ${e.resumeWhen} to judge the rest`);
      stoppedJson('stopped', e.message, { stopped: e instanceof LlmQuotaError ? 'quota' : 'outage', resumeWhen: e.resumeWhen });
      return EXIT.failed;
    }
    throw e;
  } finally {
    progress.end();
    watches.forEach((stop) => stop());
    await Promise.all(batches.map((b) => b.close()));
  }
  for (const p of result.problems) io.err(`agent-seer: ${rel(p.file)}: ${p.message}`);
  const costs = judgeCosts(result, llmJudges, prices, estimates, batches.length ? 'batch' : 'sync');
  const batchSummaries = batches.map((b) => ({ provider: `${b.id}:${b.model}`, ...b.summary() }));
  // Files that could not be read were not judged: the run did not do all it was asked to.
  const runExit = result.problems.length > 0 ? EXIT.failed : result.records === 0 ? EXIT.empty : judgeExitCode(result);
  const gateLines = wantsCi
    ? await judgeCiOutputs(
        dir,
        found.spec,
        judges.map((j) => j.id),
        ci,
        io,
        args.json,
      )
    : [];
  const exitCode = worstExit([runExit, gateExit(io, gateLines)]);
  const emptyWhy =
    result.records === 0
      ? `0 records to judge${manifest?.error ? `: ${manifest.error.replace(/^0 records: /, '')}` : manifest ? ` (the harness's run is ${manifest.status})` : ''}`
      : undefined;
  if (emptyWhy !== undefined) io.err(`agent-seer: ${rel(dir)}: ${emptyWhy}; an empty harness is not a success (exit ${EXIT.empty})`);
  if (args.json) {
    io.out(
      JSON.stringify(
        {
          dir,
          spec: found.file,
          status: exitStatus(exitCode),
          exitCode,
          ...(emptyWhy !== undefined ? { error: emptyWhy } : {}),
          records: result.records,
          judges: result.judges,
          ...(gateLines.length ? { gates: gateLines } : {}),
          cost: costs,
          problems: result.problems,
          ...(batches.length ? { batch: batchSummaries } : {}),
        },
        null,
        2,
      ),
    );
  } else {
    io.out(
      [
        judgeSummaryText(result, rel(dir), tableLook(io)),
        ...costs.map(judgeCostText),
        ...batches.map((b) => batchSummaryLine(b.summary())).filter((l) => l !== undefined),
      ].join('\n'),
    );
  }
  return exitCode;
}

/** The word for a finished judge run's exit code in `--json`. */
function exitStatus(code: number): string {
  return code === EXIT.ok ? 'complete' : code === EXIT.partial ? 'partial' : code === EXIT.empty ? 'empty' : code === EXIT.gate ? 'gate' : 'failed';
}

/** The option table of `agent-seer judge`. */
export const options = {
  judge: { type: 'string', multiple: true, default: [] },
  'base-url': { type: 'string' },
  spec: { type: 'string' },
  concurrency: { type: 'string' },
  rpm: { type: 'string' },
  ...REQUEST_TIMEOUT_OPTION,
  'cache-dir': { type: 'string' },
  force: { type: 'boolean', default: false },
  estimate: { type: 'boolean', default: false },
  prices: { type: 'string' },
  json: { type: 'boolean', default: false },
  junit: { type: 'string' },
  sarif: { type: 'string' },
  'min-exact': { type: 'string' },
  'min-determinacy': { type: 'string' },
  ...BATCH_OPTIONS,
} as const satisfies OptionTable;

/** Its lines in the top-level help. */
export const synopsis = `  agent-seer judge <harness-dir> [--judge offline|gemini[:MODEL]|openai:MODEL]…
                     [--base-url URL] [--spec FILE] [--concurrency N] [--rpm N] [--request-timeout S]
                     [--batch [--no-wait] [--batch-retry R]] [--cache-dir DIR] [--force]
                     [--estimate] [--prices FILE] [--json] [--junit FILE] [--sarif FILE]
                     [--min-exact X] [--min-determinacy X]
                                             score each record (tool calling, coherence) and
                                             store the judgments in the record files (default
                                             judge: offline, exact checks only; --judge gemini
                                             is the paper's gemini-2.5-flash at temperature 0)`;

/** `agent-seer judge --help`. */
export const usage = `Usage: agent-seer judge <harness-dir> [options]

Scores each record of a harness (tool calling, coherence) after exact checks, and stores the
judgments in the record files. Records already judged with the same inputs are skipped.

Options:
  --judge J          offline (default: exact checks only), gemini[:MODEL] (default model
                     ${DEFAULT_GEMINI_JUDGE_MODEL}, temperature 0) or openai:MODEL; repeatable
  --base-url URL     the LLM endpoint (or GEMINI_BASE_URL / OPENAI_BASE_URL)
  --spec FILE        the spec the harness was generated from (default: the harness's spec.json,
                     then the file its manifest names)
  --concurrency N    LLM calls in flight (default ${DEFAULT_CONCURRENCY}, at most ${MAX_OPTION.concurrency})
  --rpm N            LLM requests per minute (default: no limit)
${requestTimeoutHelp(21)}
  --cache-dir DIR    the LLM reply cache (default <harness-dir>/${CACHE_DIR})
${BATCH_USAGE}
  --force            judge again records already judged with the same inputs
  --estimate         print the estimated calls, tokens and price (synchronous and batch) of
                     each LLM judge and exit 0 without calling anything (no key needed)
  --prices FILE      a price table (JSON, USD per 1M tokens; see docs/llm.md, "Cost") whose
                     models replace or add to the built-in prices
  --json             print the summary as JSON
  --junit FILE       also write JUnit XML: a test case per record view (the single-turn task, and
                     the conversation of a scenario with one) per judge; a failure names each exact
                     finding (call, argument at fault, the judge's reason, the record's value), a
                     failing check, or a score under the pass threshold
  --sarif FILE       also write the judges' findings as SARIF 2.1.0 (rules = finding kinds; each
                     result at the argument, call or prompt in the record file)
  --min-exact X      exit 6 when the exact score (of the offline judge when it ran, else the first
                     judge; over views) is below X (0–1): a gate that needs no key
  --min-determinacy X
                     exit 6 when the share of checked values the user's words and outputs pin
                     down (the judgments' determinacy) is below X
  -h, --help         this text

With GITHUB_ACTIONS=true each finding is also printed as a GitHub annotation (::error or
::warning file=…,line=…,col=…::message; on stderr with --json). A failed bar is one line on stderr.

Exit 0 all judged; 1 failed (a judge judged none, an unreadable record, a quota or outage stop);
2 bad input; 3 some records not judged; 4 pending (--batch --no-wait: jobs still running);
5 empty (the harness holds 0 records); 6 a --min-exact/--min-determinacy bar missed. --json
prints its summary in every case, with "status" (complete, partial, empty, gate, failed; stopped,
cancelled or pending when the run ended early, with what was judged before).`;

/** Runs `judge` on parsed arguments. */
export function run({ values, positionals }: Parsed<typeof options>, io: Io, signal?: AbortSignal): Promise<number> {
  if (positionals.length > 1) throw new UsageError('judge takes one harness folder');
  return judgeCommand(
    {
      dir: positionals[0],
      judges: values.judge,
      baseUrl: values['base-url'],
      spec: values.spec,
      concurrency: values.concurrency,
      rpm: values.rpm,
      requestTimeout: values['request-timeout'],
      cacheDir: values['cache-dir'],
      force: values.force,
      estimate: values.estimate,
      prices: values.prices,
      json: values.json,
      ...(values.junit !== undefined ? { junit: values.junit } : {}),
      ...(values.sarif !== undefined ? { sarif: values.sarif } : {}),
      ...(values['min-exact'] !== undefined ? { minExact: values['min-exact'] } : {}),
      ...(values['min-determinacy'] !== undefined ? { minDeterminacy: values['min-determinacy'] } : {}),
      ...batchArgs(values),
    },
    io,
    signal,
  );
}
