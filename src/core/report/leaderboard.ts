/**
 * The leaderboard: every agent run against the harnesses, re-scored from its trajectories with
 * `scoreTrajectory` against the harness's records (a score stored anywhere is never read), so an
 * edited record or a fixed scorer changes the board. Per agent: the headline call score (first
 * attempts right, refusals counted against), precision, order and turn accuracy, exact call match, name match and
 * argument accuracy per scenario (averaged over its runs), their means with seeded bootstrap CIs
 * over scenarios (as TC has), the LLM judge's oracle-mode tc and coh where `run --judge` stored
 * judgments in the trajectories, pass rate and pass^k, the same per tier, and its most frequent
 * mistakes. Name match alone cannot tell apart an agent that picks the right tools from one that
 * also fills them right, and exact match alone cannot tell an agent that retried until accepted
 * from one right the first time; the call score can, so it orders the board.
 *
 * Trajectories that cannot be scored fairly are left out and said in the warnings: one of a
 * scenario the harness no longer has, one made against another spec (another hash), all of a
 * harness whose spec is unknown (defaults decide what an omitted argument means).
 */
import { runsByClient, type AgentRuns } from '../agents/readRuns';
import { passHatK, scoreTrajectory, type ScenarioScore } from '../agents/score';
import type { Trajectory } from '../agents/trajectory';
import type { HarnessRecord } from '../harness/format';
import type { Spec } from '../spec/model';
import { byCodeUnit } from '../util/byCodeUnit';
import { mean } from '../util/mean';
import { finite, summarize, type Bootstrap } from './common';
import { TOP_ERRORS, type AgentError, type AgentScores, type LeaderboardRow } from './schema';

/** One harness as the leaderboard needs it. */
export interface LeaderboardHarness {
  /** Server name as the report shows it. */
  name: string;
  records: readonly HarnessRecord[];
  spec?: Spec;
  /** Hash of the spec the records were generated from; trajectories of another hash are left out. */
  specHash?: string;
  runs: readonly AgentRuns[];
}

/** One scenario of one agent: its record and the score of each run. */
interface ScenarioRuns {
  tier: HarnessRecord['tier'];
  scores: ScenarioScore[];
  /** The judges' tc and coh of its judged runs (a run's judges averaged). */
  tc: number[];
  coh: number[];
}

/** The mean over a trajectory's judgments of one score, or null when no judge scored it. */
function judged(t: Trajectory, key: 'tc' | 'coh'): number | null {
  return mean(Object.values(t.judgments ?? {}).flatMap((j) => (j[key] === null ? [] : [j[key]])));
}

interface AgentAcc {
  ids: Set<string>;
  runs: number;
  scenarios: Map<string, ScenarioRuns>;
  errors: Map<string, AgentError>;
}

const SEP = '\u241f';

/** How every leaderboard warning starts, so a front end can tell them from the rest. */
export const LEADERBOARD_WARNING = 'Leaderboard: ';

function countError(acc: AgentAcc, e: Omit<AgentError, 'count'>): void {
  const key = [e.server, e.tool, e.parameter ?? '', e.verdict].join(SEP);
  const prev = acc.errors.get(key);
  if (prev) prev.count++;
  else acc.errors.set(key, { ...e, count: 1 });
}

function countErrors(acc: AgentAcc, server: string, s: ScenarioScore): void {
  for (const c of s.calls) {
    if (!c.name) countError(acc, { server, tool: c.expected.name, parameter: null, verdict: 'missed-call' });
    else for (const [parameter, v] of Object.entries(c.arguments)) if (v !== 'ok') countError(acc, { server, tool: c.expected.name, parameter, verdict: v });
  }
  for (const x of s.extraCalls) countError(acc, { server, tool: x.name, parameter: null, verdict: 'extra-call' });
}

function scoresOf(scenarios: readonly ScenarioRuns[], k: number, boot: Bootstrap, label: string): AgentScores {
  const per = (f: (s: ScenarioScore) => number) => scenarios.map((sc) => mean(sc.scores.map(f)) ?? 0);
  // Scenarios where the score applies (order and turn constraints exist in some only).
  const perSome = (f: (s: ScenarioScore) => number | null) =>
    scenarios.flatMap((sc) => {
      const m = mean(sc.scores.flatMap((s) => (f(s) === null ? [] : [f(s)!])));
      return m === null ? [] : [m];
    });
  return {
    scenarios: scenarios.length,
    scenarioRuns: scenarios.reduce((n, sc) => n + sc.scores.length, 0),
    callScore: summarize(
      per((s) => s.callScore),
      boot,
      `${label}|call`,
    ),
    exactCallMatch: summarize(
      per((s) => s.exactCallMatch),
      boot,
      `${label}|exact`,
    ),
    nameMatch: summarize(
      per((s) => s.nameMatch),
      boot,
      `${label}|name`,
    ),
    argumentAccuracy: summarize(
      per((s) => s.argumentAccuracy),
      boot,
      `${label}|arguments`,
    ),
    precision: finite(mean(per((s) => s.precision))),
    orderAccuracy: finite(mean(perSome((s) => s.orderAccuracy))),
    turnAccuracy: finite(mean(perSome((s) => s.turnAccuracy))),
    tc: summarize(
      scenarios.flatMap((sc) => (sc.tc.length ? [mean(sc.tc)!] : [])),
      boot,
      `${label}|tc`,
    ),
    coh: summarize(
      scenarios.flatMap((sc) => (sc.coh.length ? [mean(sc.coh)!] : [])),
      boot,
      `${label}|coh`,
    ),
    passRate: finite(mean(per((s) => (s.passed ? 1 : 0)))),
    passHatK:
      k >= 2
        ? finite(
            passHatK(
              scenarios.map((sc) => ({ runs: sc.scores.length, passes: sc.scores.filter((s) => s.passed).length })),
              k,
            ),
          )
        : null,
  };
}

/** Higher first; a missing score after every present one. */
const desc = (a: number | null, b: number | null): number => (b ?? -1) - (a ?? -1);

/** The leaderboard of every agent found in the harnesses' runs, best first, and what was left out. */
export function leaderboardOf(harnesses: readonly LeaderboardHarness[], boot: Bootstrap): { rows: LeaderboardRow[]; warnings: string[] } {
  const agents = new Map<string, AgentAcc>();
  const warnings: string[] = [];
  for (const h of harnesses) {
    if (!h.runs.length) continue;
    if (!h.spec) {
      warnings.push(`${LEADERBOARD_WARNING}the runs of ${h.name} are not scored: its spec is unknown.`);
      continue;
    }
    const spec = h.spec;
    const byId = new Map(h.records.map((r) => [r.id, r]));
    for (const a of runsByClient(h.runs)) {
      const acc = agents.get(a.agent) ?? { ids: new Set<string>(), runs: 0, scenarios: new Map<string, ScenarioRuns>(), errors: new Map<string, AgentError>() };
      agents.set(a.agent, acc);
      acc.runs = Math.max(acc.runs, a.runs.length);
      let unknown = 0;
      let otherSpec = 0;
      let absent = 0;
      for (const run of a.runs) {
        const seen = new Set<string>();
        for (const t of run.trajectories) {
          const record = byId.get(t.scenarioId);
          if (!record) {
            unknown++;
            continue;
          }
          seen.add(record.id);
          if (h.specHash !== undefined && t.specHash !== h.specHash) {
            otherSpec++;
            continue;
          }
          acc.ids.add(t.agent);
          const score = scoreTrajectory(spec, record, t);
          const key = `${h.name}${SEP}${record.id}`;
          const sc = acc.scenarios.get(key) ?? { tier: record.tier, scores: [], tc: [], coh: [] };
          sc.scores.push(score);
          const tc = judged(t, 'tc');
          const coh = judged(t, 'coh');
          if (tc !== null) sc.tc.push(tc);
          if (coh !== null) sc.coh.push(coh);
          acc.scenarios.set(key, sc);
          countErrors(acc, h.name, score);
        }
        absent += h.records.length - seen.size;
      }
      const where = `${LEADERBOARD_WARNING}agent ${a.agent} on ${h.name}`;
      if (unknown) warnings.push(`${where}: ${unknown} trajectories name no scenario of the harness; left out.`);
      if (otherSpec) warnings.push(`${where}: ${otherSpec} trajectories were made against another spec (another hash); left out.`);
      if (absent)
        warnings.push(
          `${where}: ${absent} of ${h.records.length * a.runs.length} scenario runs have no trajectory (an unfinished run); its scores leave them out.`,
        );
    }
  }
  const rows: LeaderboardRow[] = [];
  for (const [agent, acc] of agents) {
    const all = [...acc.scenarios.values()];
    if (!all.length) continue;
    const k = Math.min(...all.map((s) => s.scores.length));
    const label = `leaderboard|${agent}`;
    rows.push({
      agent,
      ids: [...acc.ids].sort(byCodeUnit),
      runs: acc.runs,
      k,
      overall: scoresOf(all, k, boot, label),
      tiers: {
        simple: scoresOf(
          all.filter((s) => s.tier === 'simple'),
          k,
          boot,
          `${label}|simple`,
        ),
        complex: scoresOf(
          all.filter((s) => s.tier === 'complex'),
          k,
          boot,
          `${label}|complex`,
        ),
      },
      topErrors: [...acc.errors.values()]
        .sort(
          (a, b) =>
            b.count - a.count ||
            byCodeUnit(a.server, b.server) ||
            byCodeUnit(a.tool, b.tool) ||
            byCodeUnit(a.parameter ?? '', b.parameter ?? '') ||
            byCodeUnit(a.verdict, b.verdict),
        )
        .slice(0, TOP_ERRORS),
    });
  }
  rows.sort(
    (a, b) =>
      desc(a.overall.callScore.mean, b.overall.callScore.mean) ||
      desc(a.overall.exactCallMatch.mean, b.overall.exactCallMatch.mean) ||
      desc(a.overall.argumentAccuracy.mean, b.overall.argumentAccuracy.mean) ||
      desc(a.overall.nameMatch.mean, b.overall.nameMatch.mean) ||
      byCodeUnit(a.agent, b.agent),
  );
  return { rows, warnings };
}
