/**
 * An agent run as JUnit: one test case per scenario run; a scenario that did not pass (an
 * expected call not right the first time, or a call refused) fails with its call score and, call
 * by call, what was expected and what the agent sent. Pure.
 */
import { runsByClient, type AgentRuns } from '../agents/readRuns';
import { scoreTrajectory, type ScenarioScore, type ScoredCall } from '../agents/score';
import type { HarnessRecord } from '../harness/format';
import type { Spec } from '../spec/model';
import type { JunitCase, JunitSuite } from './junit';

/** What a run's JUnit needs: the agent, the harness, and each scored scenario run. */
export interface RunForJunit {
  agent: string;
  harness: string;
  callScore: number;
  records: readonly (ScenarioScore & { run: number })[];
  /** Runs per scenario (`--runs`): with more than one, each case's name says which run it is. */
  runs: number;
}

const json = (v: unknown): string => JSON.stringify(v) ?? 'undefined';

/** The lines of one expected call that was not right the first time. */
function callLines(c: ScoredCall, i: number): string[] {
  const head = `call ${i} ${c.expected.name}`;
  if (!c.actual) return [`${head}: never called`, `  expected: ${json(c.expected.arguments)}`];
  const lines = [
    `${head}: ${c.malformed ? 'malformed arguments' : !c.name ? `called ${c.actual.name} instead` : c.order ? `made ${c.order.replace('-', ' ')}` : 'not right the first time'}${c.attempts > 1 ? ` (${c.attempts} attempts${c.answered ? ', answered later' : ''})` : ''}`,
  ];
  const bad = Object.entries(c.arguments).filter(([, v]) => v !== 'ok');
  if (bad.length) lines.push(`  arguments: ${bad.map(([k, v]) => `${k} ${v}`).join(', ')}`);
  lines.push(`  expected: ${json(c.expected.arguments)}`, `  actual:   ${json(c.actual.arguments)}`);
  return lines;
}

/** One suite: the agent on the harness, a case per scenario run. */
export function runJunitSuite(r: RunForJunit): JunitSuite {
  const cases: JunitCase[] = r.records.map((s) => {
    const name = r.runs > 1 ? `${s.id} (run ${s.run})` : s.id;
    const classname = `${r.harness}.${r.agent}`;
    if (s.passed) return { name, classname };
    const refusals = Object.entries(s.refusals)
      .filter(([, n]) => (n ?? 0) > 0)
      .map(([k, n]) => `${n} ${k}`);
    const wrong = s.calls.flatMap((c, i) => (c.exact ? [] : callLines(c, i)));
    const extra = s.extraCalls.map((c) => `extra call ${c.name}: ${json(c.arguments)}`);
    const calls = s.calls.length;
    const right = s.calls.filter((c) => c.exact).length;
    const message = `call score ${s.callScore.toFixed(3)}: ${right} of ${calls} expected calls right the first time${refusals.length ? `; refused: ${refusals.join(', ')}` : ''}`;
    return {
      name,
      classname,
      failure: {
        message,
        type: refusals.length ? 'refused' : 'wrong-call',
        body: [message, ...(refusals.length ? [`refused calls: ${refusals.join(', ')}`] : []), ...wrong, ...extra].join('\n'),
      },
    };
  });
  return { name: `${r.harness} run by ${r.agent}`, cases, properties: { agent: r.agent, harness: r.harness, callScore: r.callScore.toFixed(4) } };
}

/**
 * The runs kept in a harness's `runs/` as JUnit, one suite per agent (as the leaderboard groups
 * them: `runsByClient`), each trajectory re-scored against its record with `scoreTrajectory`, so
 * `report --junit` says what `run --junit` said. Trajectories of a scenario the harness does not
 * hold, or made against another spec (`specHash` given), are left out, as the leaderboard does.
 */
export function storedRunSuites(h: {
  harness: string;
  spec: Spec;
  specHash?: string;
  records: readonly HarnessRecord[];
  agents: readonly AgentRuns[];
}): JunitSuite[] {
  const byId = new Map(h.records.map((r) => [r.id, r]));
  const suites: JunitSuite[] = [];
  for (const a of runsByClient(h.agents)) {
    const records: (ScenarioScore & { run: number })[] = [];
    a.runs.forEach((run, i) => {
      for (const t of run.trajectories) {
        const record = byId.get(t.scenarioId);
        if (!record || (h.specHash !== undefined && t.specHash !== h.specHash)) continue;
        records.push({ ...scoreTrajectory(h.spec, record, t), run: i + 1 });
      }
    });
    if (!records.length) continue;
    const callScore = records.reduce((s, r) => s + r.callScore, 0) / records.length;
    suites.push(runJunitSuite({ agent: a.agent, harness: h.harness, callScore, records, runs: a.runs.length }));
  }
  return suites;
}
