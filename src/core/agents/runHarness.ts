/**
 * Running an agent on every scenario of a harness, `runs` times, and scoring what it did: the use
 * case behind `agent-seer run`. Each scenario gets its own mock server session; trajectories go to
 * `<out>/<run>/<scenario>.json` as the calls happen, and get the agent's outcome (its replies, why
 * it stopped) when the scenario ends. A scenario whose trajectory has an outcome is not run again,
 * so a re-run of a finished run makes no call and an interrupted one does only what is left.
 */
import { setMaxListeners } from 'node:events';
import { join } from 'node:path';
import { ContainmentError, ensureFolderInside, readFileInside, writeFileInside } from '../containment';
import type { HarnessRecord } from '../harness/format';
import { recordFileStem, stableJson } from '../harness/store';
import { CallGuard, DiskCache, LlmStats, type CallLimits, type ReplyCache, type ToolCallingProvider } from '../llm';
import type { Spec } from '../spec/model';
import { mean } from '../util/mean';
import { DEFAULT_CONCURRENCY } from '../workspace/defaults';
import { LLM_CACHE_DIR } from '../workspace/layout';
import { runAgentOnScenario, type AgentOutcome } from './agentLoop';
import { judgeTrajectory, needsJudging, type TrajectoryJudge } from './judgeTrajectory';
import { HarnessMockServer } from './mockServer';
import { passHatCurve, passHatK, scoreTrajectory, variance, type ScenarioScore } from './score';
import { Trajectory, type TrajectoryJudgment } from './trajectory';
import { parseKeepingKeys, safeParseKeepingKeys } from '../util/ownKeys';

export interface RunHarnessOptions {
  spec: Spec;
  specHash: string;
  records: readonly HarnessRecord[];
  provider: ToolCallingProvider;
  /** Folder of this agent's runs (`<harness>/runs/<agent>`); run k writes to `<out>/<k>/`. */
  out: string;
  /**
   * The folder `out` lies in that is trusted as named (the harness folder; `out` itself when the
   * user named it): from there down nothing is read or written through a link (containment.ts).
   * Default `out`.
   */
  outRoot?: string;
  /** Repeats of every scenario (pass^k needs k ≥ 1). Default 1. */
  runs?: number;
  /** Run scenarios again even when their trajectory is finished (`run --force`). Default false. */
  force?: boolean;
  /** Ask the model every turn: cached replies are not read (they are still written). Default false. */
  noCache?: boolean;
  limits?: CallLimits;
  maxSteps?: number;
  /** An LLM judge in oracle mode: scores each trajectory's tool calling (tc) and replies' coherence. */
  judge?: TrajectoryJudge;
  /**
   * Cache folder (the harness's `.cache`): the agent's replies are kept per turn in its `llm/`
   * subfolder, so a killed run resumes mid-scenario without asking again. Absent: no cache.
   */
  cacheDir?: string;
  signal: AbortSignal;
  onScenario?: (e: { run: number; scenarioId: string; skipped: boolean; score: ScenarioScore }) => void;
}

/** Scores over every run of every scenario. */
export interface RunSummary {
  agent: string;
  runs: number;
  scenarios: number;
  expectedCalls: number;
  /**
   * The headline: mean over scenario runs of expected calls right the first time over expected
   * calls plus refused calls (see score.ts). A retrying, copying or order-ignoring agent cannot reach 1.
   */
  callScore: number;
  /** Mean over scenario runs of expected calls whose first attempt was answered, over expected calls. */
  exactCallMatch: number;
  /** Mean over scenario runs of expected calls whose tool the agent called over expected calls. */
  nameMatch: number;
  /** Mean over scenario runs of the first attempts' arguments right over arguments compared. */
  argumentAccuracy: number;
  /** Mean over scenario runs of answered calls over the agent's calls. */
  precision: number;
  /** Mean over the scenario runs that have dependent calls of their orderAccuracy; null when none has. */
  orderAccuracy: number | null;
  /** Mean over the multi-turn scenario runs of their turnAccuracy; null when none is multi-turn. */
  turnAccuracy: number | null;
  /** Calls the mock refused, over every run, by why. */
  refusals: Record<string, number>;
  /** Calls whose arguments were not a JSON object (e.g. truncated JSON), over every run. */
  malformedCalls: number;
  /**
   * The paper's tool-calling score by the LLM judge in oracle mode (`--judge`), mean over the
   * scenario runs it judged; null without a judge or when it judged none.
   */
  tc: number | null;
  /** Coherence of the agent's replies by the same judge, mean over the scenario runs it scored; null likewise. */
  coh: number | null;
  /** The judge and how many scenario runs it judged, or could not (null without `--judge`). */
  judge: { id: string; judged: number; notJudged: number } | null;
  /** Scenarios passed (exact calls, nothing extra), over scenario runs. */
  passRate: number;
  /** pass^k for k = runs (null with one run: it equals passRate). */
  passAtK: number | null;
  /** pass^1 … pass^runs. */
  passCurve: number[];
  /** Mean over scenarios of the variance of their callScore across runs (0 with one run). */
  callScoreVariance: number;
  /** Scenarios that hit the step limit. */
  stepLimited: number;
  /** Changes made to tool schemas to offer them (once per tool and kind). */
  schemaWarnings: string[];
}

/** One scenario over its runs. */
export interface ScenarioRunsSummary {
  id: string;
  runs: number;
  passes: number;
  callScoreMean: number;
  callScoreVariance: number;
}

export interface RunHarnessResult {
  summary: RunSummary;
  /** Scores of every run of every scenario (run 1 first, scenarios in harness order), with the judge's tc and coh when there is one. */
  records: (ScenarioScore & { run: number; tc?: number | null; coh?: number | null })[];
  /** Each scenario over its runs. */
  scenarios: ScenarioRunsSummary[];
  /** Model requests this invocation made (0 for a finished run run again). */
  requests: number;
}

async function finishedTrajectory(root: string, file: string): Promise<Trajectory | undefined> {
  try {
    const t = safeParseKeepingKeys(Trajectory, JSON.parse(await readFileInside(root, file)));
    return t.success && t.data.outcome ? t.data : undefined;
  } catch (e) {
    if (e instanceof ContainmentError) throw e;
    return undefined;
  }
}

export interface RunScenarioOptions {
  spec: Spec;
  specHash: string;
  record: HarnessRecord;
  provider: ToolCallingProvider;
  /** The run's folder: the trajectory is `<dir>/<record file stem>.json`. */
  dir: string;
  /** The trusted folder `dir` lies in (see `RunHarnessOptions.outRoot`); default `dir` itself. */
  root?: string;
  guard: CallGuard;
  stats?: LlmStats;
  maxSteps?: number;
  /** Judge the trajectory (when it has no current judgment by this judge) and store the judgment in its file. */
  judge?: TrajectoryJudge;
  /** The per-turn reply cache (see `AgentLoopOptions.cache`), and which repeat this is. */
  cache?: ReplyCache;
  run?: number;
  /**
   * Run again even when a finished trajectory is there (the editor's Run and Rerun). Default
   * false: a finished scenario is scored from its file, as `agent-seer run` resumes.
   */
  rerun?: boolean;
  signal: AbortSignal;
}

/** One scenario's run: its trajectory (with the outcome), its score, and whether it was taken from disk. */
export interface ScenarioRun {
  trajectory: Trajectory;
  score: ScenarioScore;
  skipped: boolean;
  schemaWarnings: string[];
}

/** The file of a scenario's trajectory in a run folder. */
export function trajectoryFile(dir: string, scenarioId: string): string {
  return join(dir, `${recordFileStem(scenarioId)}.json`);
}

/** Runs the agent on one scenario (or scores a finished one), writing its trajectory into `dir`. */
export async function runScenario(o: RunScenarioOptions): Promise<ScenarioRun> {
  const { record } = o;
  const agent = `${o.provider.id}:${o.provider.model}`;
  const root = o.root ?? o.dir;
  await ensureFolderInside(root, o.dir);
  const file = trajectoryFile(o.dir, record.id);
  if (!o.rerun) {
    const finished = await finishedTrajectory(root, file);
    if (finished) {
      const trajectory = await judged(o, finished, file, root);
      return { trajectory, score: scoreTrajectory(o.spec, record, trajectory), skipped: true, schemaWarnings: [] };
    }
  }
  const server = new HarnessMockServer({ spec: o.spec, records: [record], specHash: o.specHash }, { trajectoryDir: o.dir, trajectoryRoot: root, agent });
  const outcome: AgentOutcome = await runAgentOnScenario(server, {
    provider: o.provider,
    guard: o.guard,
    signal: o.signal,
    ...(o.stats ? { stats: o.stats } : {}),
    ...(o.maxSteps !== undefined ? { maxSteps: o.maxSteps } : {}),
    ...(o.cache ? { cache: o.cache, run: o.run ?? 1 } : {}),
  });
  // The session's own record of the calls (a rerun whose agent calls nothing must not keep the
  // last run's calls: the file is rewritten whole here).
  const written = outcome.trajectory;
  const trajectory = parseKeepingKeys(Trajectory, {
    ...written,
    outcome: { stoppedBy: outcome.stoppedBy, steps: outcome.steps, replies: outcome.replies, callsPerTurn: outcome.callsPerTurn },
  });
  await writeFileInside(root, file, stableJson(trajectory));
  const final = await judged(o, trajectory, file, root);
  return { trajectory: final, score: scoreTrajectory(o.spec, record, final), skipped: false, schemaWarnings: outcome.schemaWarnings };
}

/** The trajectory with the judge's judgment added (and written) when it needs one. */
async function judged(o: RunScenarioOptions, t: Trajectory, file: string, root: string): Promise<Trajectory> {
  if (!o.judge || !needsJudging(t, o.judge.id)) return t;
  const judgment = await judgeTrajectory(o.spec, o.record, t, o.judge, o.signal);
  const out = parseKeepingKeys(Trajectory, { ...t, judgments: { ...t.judgments, [o.judge.id]: judgment } });
  await writeFileInside(root, file, stableJson(out));
  return out;
}

/** Runs the agent; throws on cancellation and on faults no scenario can get past (bad key, quota, outage). */
export async function runHarness(o: RunHarnessOptions): Promise<RunHarnessResult> {
  const runs = Math.max(1, o.runs ?? 1);
  // Every waiting call and tool call listens on the run's signal: many at once are expected.
  setMaxListeners(0, o.signal);
  const agent = `${o.provider.id}:${o.provider.model}`;
  const stats = new LlmStats();
  const guard = new CallGuard(o.limits);
  const disk = o.cacheDir !== undefined ? new DiskCache(join(o.cacheDir, LLM_CACHE_DIR)) : undefined;
  // --no-cache: every turn is asked; the replies are still kept, so a killed run resumes.
  const cache: ReplyCache | undefined =
    disk && o.noCache
      ? { get: async () => undefined, set: (k, e, p) => disk.set(k, e, p), getReply: async () => undefined, setReply: (k, v, p) => disk.setReply(k, v, p) }
      : disk;
  const scored: RunHarnessResult['records'][] = [];
  const warnings = new Set<string>();
  const judgments: TrajectoryJudgment[] = [];
  let stepLimited = 0;
  for (let run = 1; run <= runs; run++) {
    const dir = join(o.out, String(run));
    await ensureFolderInside(o.outRoot ?? o.out, dir);
    const scores: RunHarnessResult['records'] = [];
    // Scenarios run concurrently up to the guard's concurrency; each has its own mock session.
    const queue = [...o.records];
    const worker = async (): Promise<void> => {
      for (let record = queue.shift(); record; record = queue.shift()) {
        const done = await runScenario({
          spec: o.spec,
          specHash: o.specHash,
          record,
          provider: o.provider,
          dir,
          root: o.outRoot ?? o.out,
          guard,
          stats,
          signal: o.signal,
          ...(o.maxSteps !== undefined ? { maxSteps: o.maxSteps } : {}),
          ...(o.judge ? { judge: o.judge } : {}),
          ...(cache ? { cache, run } : {}),
          ...(o.force ? { rerun: true } : {}),
        });
        const judgment = o.judge ? done.trajectory.judgments?.[o.judge.id] : undefined;
        if (judgment) judgments.push(judgment);
        for (const w of done.schemaWarnings) warnings.add(w);
        if (done.trajectory.outcome?.stoppedBy === 'step-limit') stepLimited++;
        scores.push(o.judge ? { ...done.score, run, tc: judgment?.tc ?? null, coh: judgment?.coh ?? null } : { ...done.score, run });
        o.onScenario?.({ run, scenarioId: record.id, skipped: done.skipped, score: done.score });
      }
    };
    const width = Math.max(1, Math.min(o.limits?.concurrency ?? DEFAULT_CONCURRENCY, o.records.length));
    await Promise.all(Array.from({ length: width }, worker));
    const order = new Map(o.records.map((r, i) => [r.id, i]));
    scores.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
    scored.push(scores);
  }
  const all = scored.flat();
  const expectedCalls = all.reduce((n, s) => n + s.calls.length, 0);
  // Means over scenario runs (every scenario has the same number of runs): the leaderboard's
  // definitions, so `run` and `report` print the same figures.
  const meanOf = (f: (s: ScenarioScore) => number): number => mean(all.map(f)) ?? 0;
  const meanOfSome = (f: (s: ScenarioScore) => number | null): number | null => mean(all.flatMap((s) => (f(s) === null ? [] : [f(s)!])));
  const scenarios: ScenarioRunsSummary[] = o.records.map((r) => {
    const mine = all.filter((s) => s.id === r.id);
    return {
      id: r.id,
      runs: mine.length,
      passes: mine.filter((s) => s.passed).length,
      callScoreMean: mean(mine.map((s) => s.callScore)) ?? 0,
      callScoreVariance: variance(mine.map((s) => s.callScore)),
    };
  });
  const refusals: Record<string, number> = {};
  for (const s of all) for (const [k, v] of Object.entries(s.refusals)) refusals[k] = (refusals[k] ?? 0) + (v ?? 0);
  return {
    summary: {
      agent,
      runs,
      scenarios: o.records.length,
      expectedCalls: expectedCalls / runs,
      callScore: meanOf((s) => s.callScore),
      exactCallMatch: meanOf((s) => s.exactCallMatch),
      nameMatch: meanOf((s) => s.nameMatch),
      argumentAccuracy: meanOf((s) => s.argumentAccuracy),
      precision: meanOf((s) => s.precision),
      orderAccuracy: meanOfSome((s) => s.orderAccuracy),
      turnAccuracy: meanOfSome((s) => s.turnAccuracy),
      refusals,
      malformedCalls: all.reduce((n, s) => n + s.calls.filter((c) => c.malformed).length, 0),
      tc: mean(judgments.flatMap((j) => (j.tc === null ? [] : [j.tc]))),
      coh: mean(judgments.flatMap((j) => (j.coh === null ? [] : [j.coh]))),
      judge: o.judge
        ? {
            id: o.judge.id,
            judged: judgments.filter((j) => j.status.tc === 'scored').length,
            notJudged: judgments.filter((j) => j.status.tc !== 'scored').length,
          }
        : null,
      passRate: all.length ? all.filter((s) => s.passed).length / all.length : 0,
      passAtK: runs > 1 ? passHatK(scenarios, runs) : null,
      passCurve: passHatCurve(scenarios, runs),
      callScoreVariance: mean(scenarios.map((s) => s.callScoreVariance)) ?? 0,
      stepLimited,
      schemaWarnings: [...warnings].sort(),
    },
    records: all,
    scenarios,
    requests: stats.snapshot().requests,
  };
}
