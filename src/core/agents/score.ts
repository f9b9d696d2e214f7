/**
 * Scoring an agent's calls against the oracle, exactly: which expected calls the agent made with
 * every argument right, which only by name, which it missed, and what it called that the oracle
 * does not. Most tools report only the name match; the argument-level score beside it is what
 * tells apart an agent that picks the right tools from one that also fills them right.
 *
 * Alignment: each expected call takes the first unused agent call of the same tool that has the
 * same arguments (as `sameArguments` compares them); expected calls left over then take the
 * first unused agent call of the same tool (a name-only match). Agent calls left over are extra.
 */
import type { HarnessRecord } from '../harness/format';
import { canonicalJson } from '../harness/hash';
import type { Spec } from '../spec/model';
import { isRecord } from '../util/isRecord';
import { sameArguments } from './replay';

/** How one argument of an expected call came out. */
export type ArgumentVerdict = 'ok' | 'wrong' | 'missing' | 'extra';

/** One expected call and the agent call aligned with it. */
export interface ScoredCall {
  expected: { name: string; arguments: unknown };
  /** The agent's call of the same tool, or null when it made none left to align. */
  actual: { name: string; arguments: unknown } | null;
  /** The tool name matched (an actual call exists). */
  name: boolean;
  /** Name and every argument matched. */
  exact: boolean;
  /** Per top-level parameter of either call (absent when no actual call). */
  arguments: Record<string, ArgumentVerdict>;
}

/** One scenario's score. */
export interface ScenarioScore {
  id: string;
  calls: ScoredCall[];
  /** Agent calls no expected call took. */
  extraCalls: { name: string; arguments: unknown }[];
  /** Expected calls matched exactly, over expected calls (1 when none were expected and none made). */
  exactCallMatch: number;
  /** Expected calls whose tool the agent called, over expected calls. */
  nameMatch: number;
  /** Arguments `ok` over all arguments of the name-matched pairs plus those of missed calls. */
  argumentAccuracy: number;
  /** The agent made the expected calls exactly and nothing else. */
  passed: boolean;
}

/** Top-level argument verdicts of an actual call against the expected one. */
export function compareArguments(spec: Spec, tool: string, expected: unknown, actual: unknown): Record<string, ArgumentVerdict> {
  const e = isRecord(expected) ? expected : {};
  const a = isRecord(actual) ? actual : {};
  const out: Record<string, ArgumentVerdict> = {};
  for (const k of Object.keys(e)) {
    if (!Object.hasOwn(a, k)) out[k] = sameArguments(spec, tool, { [k]: e[k] }, {}) ? 'ok' : 'missing';
    else out[k] = canonicalJson(e[k]) === canonicalJson(a[k]) ? 'ok' : 'wrong';
  }
  for (const k of Object.keys(a)) if (!Object.hasOwn(e, k)) out[k] = sameArguments(spec, tool, {}, { [k]: a[k] }) ? 'ok' : 'extra';
  return out;
}

/** Scores the calls an agent made on one record. */
export function scoreScenario(spec: Spec, record: HarnessRecord, actual: readonly { name: string; arguments: unknown }[]): ScenarioScore {
  const expected = record.expected_tools;
  const used = new Set<number>();
  const pairs: (number | undefined)[] = expected.map(() => undefined);
  // Exact matches first, so a wrong call of a tool cannot steal the pair of a right one.
  expected.forEach((e, i) => {
    const j = actual.findIndex((a, k) => !used.has(k) && a.name === e.name && sameArguments(spec, e.name, e.arguments, a.arguments));
    if (j >= 0) {
      used.add(j);
      pairs[i] = j;
    }
  });
  expected.forEach((e, i) => {
    if (pairs[i] !== undefined) return;
    const j = actual.findIndex((a, k) => !used.has(k) && a.name === e.name);
    if (j >= 0) {
      used.add(j);
      pairs[i] = j;
    }
  });
  let argsOk = 0;
  let argsAll = 0;
  const calls: ScoredCall[] = expected.map((e, i) => {
    const j = pairs[i];
    const a = j === undefined ? null : actual[j]!;
    if (!a) {
      const n = isRecord(e.arguments) ? Object.keys(e.arguments).length : 0;
      argsAll += n;
      return { expected: { name: e.name, arguments: e.arguments }, actual: null, name: false, exact: false, arguments: {} };
    }
    const verdicts = compareArguments(spec, e.name, e.arguments, a.arguments);
    const values = Object.values(verdicts);
    argsAll += values.length;
    argsOk += values.filter((v) => v === 'ok').length;
    return {
      expected: { name: e.name, arguments: e.arguments },
      actual: { name: a.name, arguments: a.arguments },
      name: true,
      exact: values.every((v) => v === 'ok'),
      arguments: verdicts,
    };
  });
  const extraCalls = actual.filter((_, k) => !used.has(k)).map((a) => ({ name: a.name, arguments: a.arguments }));
  const n = expected.length;
  const exact = calls.filter((c) => c.exact).length;
  return {
    id: record.id,
    calls,
    extraCalls,
    exactCallMatch: n ? exact / n : extraCalls.length ? 0 : 1,
    nameMatch: n ? calls.filter((c) => c.name).length / n : extraCalls.length ? 0 : 1,
    argumentAccuracy: argsAll ? argsOk / argsAll : 1,
    passed: exact === n && extraCalls.length === 0,
  };
}

/**
 * pass^k (τ-bench): the chance that all of k runs of a scenario pass, estimated from n ≥ k runs
 * with c passes as C(c, k) / C(n, k), averaged over scenarios.
 */
export function passHatK(passesPerScenario: readonly { runs: number; passes: number }[], k: number): number | null {
  const usable = passesPerScenario.filter((s) => s.runs >= k);
  if (!usable.length || k < 1) return null;
  const choose = (n: number, r: number): number => {
    if (r < 0 || r > n) return 0;
    let x = 1;
    for (let i = 1; i <= r; i++) x = (x * (n - r + i)) / i;
    return x;
  };
  return usable.reduce((sum, s) => sum + choose(s.passes, k) / choose(s.runs, k), 0) / usable.length;
}
