import { runHarness, type RunHarnessResult } from '../../core/agents/runHarness';
import { gateFailures } from '../../core/ci/gates';
import { runJunitSuite } from '../../core/ci/runCi';
import { gateExit, scoreOption, writeJunitFile } from '../ciOutputs';
import { statusTone } from '../colour';
import { startProgress } from '../progress';
import { specHash } from '../../core/harness/hash';
import { readHarness } from '../../core/harness/store';
import { findHarnessSpec } from '../../core/harness/specLookup';
import { createProvider, isToolCallingProvider, LlmConfigError, LlmStopError, sharedQuotaFor, type ToolCallingProvider } from '../../core/llm';
import { MAX_OPTION } from '../../core/bounds';
import { DEFAULT_CONCURRENCY, RPM_WINDOW_MS } from '../../core/workspace/defaults';
import { agentRunsDir, CACHE_DIR } from '../../core/workspace/layout';
import { createLlmClient } from '../../core/llm/client';
import { requestTimeoutHelp, REQUEST_TIMEOUT_OPTION, requestTimeoutMs, watchedProvider } from '../requestTimeout';
import type { TrajectoryJudge } from '../../core/agents/judgeTrajectory';
import { basename, join } from 'node:path';
import { parseJudgeOption } from './judge';
import type { OptionTable, Parsed } from '../command';
import { EXIT, UsageError, worstExit, type Io } from '../errors';
import { formatProblem, relativeTo } from '../format';
import { renderTable, tableLook, type TableLook } from '../table';
import { intOption, pathOption, providerModelOption } from '../options';

/** `--agent gemini[:MODEL]` or `openai:MODEL` (an OpenAI-compatible endpoint serves no default model). */
function parseAgent(raw: string): { provider: 'gemini' | 'openai'; model?: string } {
  const agent = providerModelOption('--agent', raw, 'gemini[:MODEL] or openai:MODEL');
  return agent;
}

const f3 = (x: number | null): string => (x === null ? '–' : x.toFixed(3));

/** The `--json` output (names as documented in docs/cli.md, `run`). */
export function runJson(r: RunHarnessResult): Record<string, unknown> {
  return {
    agent: r.summary.agent,
    summary: r.summary,
    scenarios: r.scenarios,
    records: r.records.map((s) => ({
      id: s.id,
      run: s.run,
      passed: s.passed,
      callScore: s.callScore,
      exactCallMatch: s.exactCallMatch,
      nameMatch: s.nameMatch,
      argumentAccuracy: s.argumentAccuracy,
      precision: s.precision,
      orderAccuracy: s.orderAccuracy,
      turnAccuracy: s.turnAccuracy,
      refusals: s.refusals,
      ...(s.tc !== undefined ? { tc: s.tc, coh: s.coh ?? null } : {}),
      calls: s.calls,
      extraCalls: s.extraCalls,
    })),
    requests: r.requests,
  };
}

const refusalText = (refusals: Record<string, number>): string =>
  Object.entries(refusals)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${v} ${k}`)
    .join(', ');

function runText(r: RunHarnessResult, where: string, look: TableLook = {}): string {
  const s = r.summary;
  const refused = Object.values(s.refusals).reduce((a, b) => a + b, 0);
  const many = s.runs > 1;
  return [
    `Ran ${s.agent} on ${s.scenarios} scenario${s.scenarios === 1 ? '' : 's'} × ${s.runs} run${s.runs === 1 ? '' : 's'} (trajectories in ${where}; ${r.requests} model requests this time)`,
    `  call score ${f3(s.callScore)} · exact call match ${f3(s.exactCallMatch)} · name match ${f3(s.nameMatch)} · argument accuracy ${f3(s.argumentAccuracy)} · precision ${f3(s.precision)} · passed ${f3(s.passRate)}${s.passAtK !== null ? ` · pass^${s.runs} ${f3(s.passAtK)}` : ''}`,
    `  order ${f3(s.orderAccuracy)} · turns ${f3(s.turnAccuracy)} · refused calls ${refused}${refused ? ` (${refusalText(s.refusals)})` : ''}${s.malformedCalls ? ` · ${s.malformedCalls} with arguments that were not JSON` : ''}${s.stepLimited ? ` · ${s.stepLimited} stopped at the step limit` : ''}`,
    ...(many
      ? [`  pass^1…pass^${s.runs}: ${s.passCurve.map(f3).join(' ')} · call score variance across runs (mean over scenarios) ${s.callScoreVariance.toFixed(4)}`]
      : []),
    renderTable(
      ['scenario', ...(many ? ['run'] : []), 'passed', 'score', 'exact', 'names', 'arguments', 'missed', 'refused'],
      r.records.map((x) => [
        x.id,
        ...(many ? [x.run] : []),
        x.passed ? 'yes' : 'no',
        f3(x.callScore),
        f3(x.exactCallMatch),
        f3(x.nameMatch),
        f3(x.argumentAccuracy),
        x.calls.filter((c) => !c.name).length,
        Object.values(x.refusals).reduce((a, b) => a + (b ?? 0), 0),
      ]),
      // The passed column green or red.
      { ...look, tone: (col, cell) => (col === (many ? 2 : 1) ? statusTone(cell) : undefined) },
    ),
    ...(s.judge
      ? [
          `  LLM judge ${s.judge.id} (oracle mode): tc ${f3(s.tc)} · coh ${f3(s.coh)} · judged ${s.judge.judged} of ${s.judge.judged + s.judge.notJudged} scenario runs${s.judge.notJudged ? ` (${s.judge.notJudged} not judged: see the judgments' notes in the trajectory files; re-run to try them again)` : ''}`,
        ]
      : []),
    // What the agent was offered differs from what the server lists: said, the first few in full.
    ...(s.schemaWarnings.length
      ? [
          `  tools as offered differ from the server's list (${s.schemaWarnings.length}): ${s.schemaWarnings.slice(0, 3).join('; ')}${s.schemaWarnings.length > 3 ? '; … (see --json summary.schemaWarnings)' : ''}`,
        ]
      : []),
  ].join('\n');
}

async function runCommand(
  args: {
    dir?: string;
    agent?: string;
    baseUrl?: string;
    runs?: string;
    concurrency?: string;
    rpm?: string;
    requestTimeout?: string;
    maxSteps?: string;
    out?: string;
    spec?: string;
    judge?: string;
    judgeBaseUrl?: string;
    json: boolean;
    noCache: boolean;
    force: boolean;
    /** `--junit FILE`: a test case per scenario run. */
    junit?: string;
    /** `--min-score X`: the run's call score bar. */
    minScore?: string;
  },
  io: Io,
  signal?: AbortSignal,
): Promise<number> {
  if (!args.dir) throw new UsageError('run needs a harness folder');
  if (!args.agent) throw new UsageError('run needs --agent gemini[:MODEL] or openai:MODEL');
  const dir = pathOption('harness folder', args.dir, io.cwd);
  const agent = parseAgent(args.agent);
  const runs = intOption('runs', args.runs, 1, 1, 100)!;
  const concurrency = intOption('concurrency', args.concurrency, DEFAULT_CONCURRENCY, 1, MAX_OPTION.concurrency)!;
  const rpm = intOption('rpm', args.rpm, undefined, 1, MAX_OPTION.rpm);
  const maxSteps = intOption('max-steps', args.maxSteps, 16, 1, 1000)!;
  const timeoutMs = requestTimeoutMs(args.requestTimeout);
  const minScore = scoreOption('--min-score', args.minScore);
  const read = await readHarness(dir);
  if (!read.records.length) throw new UsageError(`${args.dir}: no scenarios to run (not a harness folder, or no records)`);
  for (const p of read.problems) io.err(`agent-seer: ${formatProblem(p, relativeTo(io.cwd))}`);
  const found = await findHarnessSpec(dir, read.manifest, { ...(args.spec ? { specFile: pathOption('--spec', args.spec, io.cwd) } : {}), cwd: io.cwd });
  if (!found.ok) throw new UsageError(found.notFound ? `${found.error}: pass --spec FILE` : found.error);
  let chat;
  try {
    chat = createProvider({
      provider: agent.provider,
      ...(agent.model ? { model: agent.model } : {}),
      ...(args.baseUrl ? { baseUrl: args.baseUrl } : {}),
      env: io.env,
    });
  } catch (e) {
    if (e instanceof LlmConfigError) throw new UsageError(e.message);
    throw e;
  }
  if (!isToolCallingProvider(chat)) throw new UsageError(`${chat.id}:${chat.model} cannot call tools`);
  const watched = watchedProvider(chat, timeoutMs, io);
  const provider: ToolCallingProvider = watched.chat;
  // The harness's cache: the agent's replies per turn (resume mid-scenario) and the judge's.
  const cacheDir = join(dir, CACHE_DIR);
  const judge = args.judge !== undefined ? trajectoryJudge(args.judge, args.judgeBaseUrl, cacheDir, { concurrency, rpm, timeoutMs }, io) : undefined;
  const out = args.out ? pathOption('--out', args.out, io.cwd) : agentRunsDir(dir, provider);
  const abort = signal ?? new AbortController().signal;
  io.err(`agent-seer: running ${provider.id}:${provider.model} on ${read.records.length} scenarios × ${runs}…`);
  const progress = startProgress(io, 'run');
  let finished = 0;
  const total = read.records.length * runs;
  let result: RunHarnessResult;
  try {
    result = await runHarness({
      spec: found.spec,
      specHash: specHash(found.spec),
      records: read.records,
      provider,
      out,
      // The default folder is the harness's runs/, checked from the harness folder down; a folder the user names is theirs.
      outRoot: args.out ? out : dir,
      runs,
      ...(args.force ? { force: true } : {}),
      ...(args.noCache ? { noCache: true } : {}),
      maxSteps,
      limits: {
        concurrency,
        timeoutMs,
        ...(rpm !== undefined ? { rpm, rpmWindowMs: RPM_WINDOW_MS } : {}),
        // The account's window, shared with generate/judge and other processes on the same key.
        ...(chat.quotaScope ? { sharedQuota: sharedQuotaFor(cacheDir, chat.quotaScope) } : {}),
      },
      ...(judge ? { judge } : {}),
      cacheDir,
      signal: abort,
      onScenario: (e) => {
        finished++;
        progress.update(
          'scenarios',
          finished,
          total,
          `${e.scenarioId}${runs > 1 ? ` (run ${e.run})` : ''} · ${e.skipped ? 'done before' : e.score.passed ? 'passed' : 'failed'}`,
        );
      },
    });
  } catch (e) {
    if (abort.aborted) {
      io.err('agent-seer: cancelled; finished scenarios are saved, re-run the same command to continue');
      return EXIT.failed;
    }
    if (e instanceof LlmStopError) {
      io.err(`agent-seer: stopped: ${e.message}`);
      io.err(`agent-seer: finished scenarios are saved; re-run the same command once ${e.resumeWhen}`);
      return EXIT.failed;
    }
    throw e;
  } finally {
    progress.end();
    watched.stop();
  }
  io.out(args.json ? JSON.stringify(runJson(result), null, 2) : runText(result, relativeTo(io.cwd)(out), tableLook(io)));
  if (args.junit !== undefined) {
    const suite = runJunitSuite({
      agent: result.summary.agent,
      harness: basename(dir) || dir,
      callScore: result.summary.callScore,
      records: result.records,
      runs,
    });
    await writeJunitFile(args.junit, [suite], io);
  }
  const gates =
    minScore === undefined
      ? []
      : gateFailures([{ flag: '--min-score', what: `call score (${result.summary.agent})`, min: minScore, value: result.summary.callScore }]);
  const gateCode = gateExit(io, gates);
  // A judge that judged nothing it tried failed the run; some not judged make it partial (as `judge`).
  const j = result.summary.judge;
  if (j && j.notJudged > 0) {
    io.err(`agent-seer: the judge ${j.id} could not judge ${j.notJudged} of ${j.judged + j.notJudged} scenario runs (tc and coh leave them out)`);
    return worstExit([j.judged === 0 ? EXIT.failed : EXIT.partial, gateCode]);
  }
  return gateCode;
}

/** The LLM judge of `--judge` (an offline judge has nothing to add to the exact scores). */
function trajectoryJudge(
  raw: string,
  baseUrl: string | undefined,
  cacheDir: string,
  limits: { concurrency: number; rpm: number | undefined; timeoutMs: number },
  io: Io,
): TrajectoryJudge {
  const { concurrency, rpm, timeoutMs } = limits;
  const parsed = parseJudgeOption(raw);
  if (parsed.provider === 'offline') throw new UsageError('--judge needs an LLM judge (gemini[:MODEL] or openai:MODEL): the exact scores are always computed');
  let chat;
  try {
    chat = createProvider({ provider: parsed.provider, ...(parsed.model ? { model: parsed.model } : {}), ...(baseUrl ? { baseUrl } : {}), env: io.env });
  } catch (e) {
    if (e instanceof LlmConfigError) throw new UsageError(e.message);
    throw e;
  }
  const { llm } = createLlmClient({ chat, role: 'judge', cacheDir, concurrency, ...(rpm !== undefined ? { rpm } : {}), limits: { timeoutMs } });
  return { id: `${chat.id}:${chat.model}`, llm };
}

/** The option table of `agent-seer run`. */
export const options = {
  agent: { type: 'string' },
  'base-url': { type: 'string' },
  runs: { type: 'string' },
  concurrency: { type: 'string' },
  rpm: { type: 'string' },
  ...REQUEST_TIMEOUT_OPTION,
  'max-steps': { type: 'string' },
  out: { type: 'string' },
  spec: { type: 'string' },
  judge: { type: 'string' },
  'judge-base-url': { type: 'string' },
  json: { type: 'boolean', default: false },
  'no-cache': { type: 'boolean', default: false },
  force: { type: 'boolean', default: false },
  junit: { type: 'string' },
  'min-score': { type: 'string' },
} as const satisfies OptionTable;

/** Its lines in the top-level help. */
export const synopsis = `  agent-seer run <harness-dir> --agent gemini[:MODEL]|openai:MODEL [--base-url URL]
                     [--runs K] [--concurrency N] [--rpm N] [--request-timeout S] [--max-steps N] [--out DIR]
                     [--judge gemini[:MODEL]|openai:MODEL] [--judge-base-url URL] [--no-cache] [--force] [--json]
                     [--junit FILE] [--min-score X]
                                             run a model with native function calling against
                                             the harness (served as a mock MCP server) and score
                                             its calls against the oracle`;

/** `agent-seer run --help`. */
export const usage = `Usage: agent-seer run <harness-dir> --agent gemini[:MODEL]|openai:MODEL [options]

Runs the built-in agent — a model with native function calling — on every scenario: it sees the
tools and the user's turns only, and calls the harness served as a mock MCP server, which answers
an expected call and refuses anything else as a server would (never saying what was expected).
Its calls are written to <harness-dir>/runs/<agent>/<run>/<scenario>.json and scored against the
oracle: the call score (expected calls right at the first attempt over expected calls plus
refused calls: the headline), exact call match, name match, argument accuracy, precision, order
and turn accuracy, passed scenarios (every call right first time, none refused), pass^1…pass^K
with --runs K.
With --judge, an LLM judge in oracle mode also scores each trajectory's tool calling (tc) and
the coherence of the agent's replies (coh), exact facts winning; judgments are kept in the
trajectory files. A scenario already finished (and judged) in a run is not run again (a re-run
makes no model call) unless --force; the agent's replies are cached per turn under the endpoint
and model, so --no-cache asks the model again.

Options:
  --agent P[:M]       gemini (default model gemini-2.5-flash-lite) or openai:MODEL
  --base-url URL      the provider's endpoint (else GEMINI_BASE_URL / OPENAI_BASE_URL)
  --runs K            run every scenario K times (default 1; pass^K needs K ≥ 2)
  --concurrency N     scenarios in flight (default 4)
  --rpm N             model requests per minute
${requestTimeoutHelp(22)}
  --max-steps N       model turns per scenario before it is stopped (default 16)
  --out DIR           where the runs go (default <harness-dir>/runs/<provider>-<model>)
  --spec FILE         the spec the harness was generated from (default: its spec.json)
  --judge P[:M]       an LLM judge in oracle mode: gemini (default model gemini-2.5-flash) or openai:MODEL
  --judge-base-url URL the judge's endpoint (else GEMINI_BASE_URL / OPENAI_BASE_URL)
  --no-cache          ask the model every turn (cached replies are not read; new ones are kept)
  --force             run finished scenarios again (their trajectories are rewritten)
  --json              print the scores as JSON (every run of every scenario)
  --junit FILE        also write JUnit XML: a test case per scenario run; a scenario that did not
                      pass fails with its call score, the refused calls, and each expected call not
                      right the first time with its expected and actual arguments
  --min-score X       exit 6 when the run's call score is below X (0–1); one line says by how much
  -h, --help          this text

Keys: GEMINI_API_KEY (or GOOGLE_API_KEY), OPENAI_API_KEY.
Exit 0; 1 when the run failed or was stopped (quota, outage, cancelled) or the judge judged
none of the scenario runs; 2 on bad input; 3 when the judge could not judge some of them; 6 when
the call score missed --min-score.`;

/** Runs `run` on parsed arguments. */
export function run({ values, positionals }: Parsed<typeof options>, io: Io, signal?: AbortSignal): Promise<number> {
  if (positionals.length > 1) throw new UsageError('run takes one harness folder');
  return runCommand(
    {
      dir: positionals[0],
      agent: values.agent,
      baseUrl: values['base-url'],
      runs: values.runs,
      concurrency: values.concurrency,
      rpm: values.rpm,
      requestTimeout: values['request-timeout'],
      maxSteps: values['max-steps'],
      out: values.out,
      spec: values.spec,
      judge: values.judge,
      judgeBaseUrl: values['judge-base-url'],
      json: values.json,
      noCache: values['no-cache'],
      force: values.force,
      ...(values.junit !== undefined ? { junit: values.junit } : {}),
      ...(values['min-score'] !== undefined ? { minScore: values['min-score'] } : {}),
    },
    io,
    signal,
  );
}
