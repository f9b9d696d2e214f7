/**
 * Scoring an agent's calls against the oracle, exactly. The calls are replayed through the mock's
 * own rules (`ScenarioReplay`), so the score sees what the agent saw: which calls were answered,
 * which refused and why. Every call is an *attempt* at an expected call — the one it matched, the
 * one it was too early for (an ordering refusal), or else the earliest expected call of the same
 * tool not answered yet — or an extra call. Then, per scenario:
 *
 * - `callScore`, the headline: expected calls whose **first attempt** was answered, over expected
 *   calls plus refused calls. Retrying until the mock accepts, calling in the wrong order or
 *   calling what nobody asked for all lower it; only an agent that gets every call right the first
 *   time, in an order the data allows, and makes no other call scores 1;
 * - `exactCallMatch`: expected calls whose first attempt was answered, over expected calls;
 * - `nameMatch` (what most tools report): expected calls whose tool the agent called at all;
 * - `argumentAccuracy`: the first attempt's arguments against the expected ones;
 * - `precision`: answered calls over all the agent's calls;
 * - `orderAccuracy` / `turnAccuracy`: expected calls never attempted before the call they take a
 *   value from / before the user turn that asks for them (null when no call has such a constraint);
 * - `passed`: every expected call right the first time and no call refused.
 */
import type { HarnessRecord } from '../harness/format';
import { canonicalJson } from '../harness/hash';
import type { Spec } from '../spec/model';
import { isRecord } from '../util/isRecord';
import { mean } from '../util/mean';
import { sameArguments, ScenarioReplay, turnsOf } from './replay';
import type { RefusalKind } from './trajectory';

/** How one argument of an expected call came out. */
export type ArgumentVerdict = 'ok' | 'wrong' | 'missing' | 'extra';

/** One expected call and the agent's first attempt at it. */
export interface ScoredCall {
  expected: { name: string; arguments: unknown };
  /** The agent's first attempt at it, or null when it made none. */
  actual: { name: string; arguments: unknown } | null;
  /** The tool name matched (an attempt exists). */
  name: boolean;
  /** The first attempt was answered: name and every argument right, at a moment it could be made. */
  exact: boolean;
  /** Attempts at it (1 for a call right the first time). */
  attempts: number;
  /** Some attempt was answered. */
  answered: boolean;
  /** The first attempt's arguments were not a JSON object (e.g. truncated JSON). */
  malformed: boolean;
  /** An attempt came before the call it takes a value from (`before-source`) or before its user turn (`before-turn`). */
  order: 'before-source' | 'before-turn' | null;
  /** Per top-level parameter of the first attempt (absent when no attempt or malformed). */
  arguments: Record<string, ArgumentVerdict>;
}

/** One scenario's score. */
export interface ScenarioScore {
  id: string;
  calls: ScoredCall[];
  /** Agent calls that were an attempt at no expected call. */
  extraCalls: { name: string; arguments: unknown }[];
  /** The headline (see the module comment). */
  callScore: number;
  /** Expected calls right the first time, over expected calls (1 when none were expected and none made). */
  exactCallMatch: number;
  /** Expected calls whose tool the agent called, over expected calls. */
  nameMatch: number;
  /** Arguments `ok` over all arguments of the first attempts plus those of missed calls. */
  argumentAccuracy: number;
  /** Answered calls over the agent's calls (1 when it made none). */
  precision: number;
  /** Dependent expected calls never attempted before their source, over dependent calls; null when none depends on another. */
  orderAccuracy: number | null;
  /** Expected calls of turns after the first never attempted before their turn, over those calls; null for one turn. */
  turnAccuracy: number | null;
  /** Refused calls, by why. */
  refusals: Partial<Record<RefusalKind, number>>;
  /** Every expected call right the first time and no call refused. */
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

/** The user turn each call was made in, when `callsPerTurn` accounts for every call. */
export function turnsOfCalls(calls: number, callsPerTurn: readonly number[] | undefined): number[] | undefined {
  if (!callsPerTurn || callsPerTurn.reduce((a, b) => a + b, 0) !== calls) return undefined;
  return callsPerTurn.flatMap((n, turn) => Array.from({ length: n }, () => turn));
}

/**
 * Scores the calls an agent made on one record, in order. `callsPerTurn` (the built-in agent's
 * record of how many calls it made in each user turn) lets the replay see which turns the agent
 * had been given; without it (an external client of `serve`) the mock's own rule applies.
 */
export function scoreScenario(
  spec: Spec,
  record: HarnessRecord,
  actual: readonly { name: string; arguments: unknown }[],
  callsPerTurn?: readonly number[],
): ScenarioScore {
  const expected = record.expected_tools;
  const replay = new ScenarioReplay(record, spec);
  const turnOfCall = turnsOfCalls(actual.length, callsPerTurn);
  const attempts: number[][] = expected.map(() => []);
  const answeredBy: (number | undefined)[] = expected.map(() => undefined);
  const order: ScoredCall['order'][] = expected.map(() => null);
  const extra: number[] = [];
  const refusals: Partial<Record<RefusalKind, number>> = {};
  let refused = 0;
  actual.forEach((c, k) => {
    if (turnOfCall) replay.beginTurn(turnOfCall[k]!);
    const a = replay.call(c.name, c.arguments);
    if (a.ok) {
      attempts[a.expectedIndex]!.push(k);
      answeredBy[a.expectedIndex] = k;
      return;
    }
    refused++;
    refusals[a.kind] = (refusals[a.kind] ?? 0) + 1;
    if (a.expectedIndex !== undefined) {
      attempts[a.expectedIndex]!.push(k);
      order[a.expectedIndex] ??= a.kind === 'before-turn' ? 'before-turn' : 'before-source';
      return;
    }
    const target = expected.findIndex((e, i) => e.name === c.name && answeredBy[i] === undefined);
    if (target >= 0) attempts[target]!.push(k);
    else extra.push(k);
  });
  let argsOk = 0;
  let argsAll = 0;
  const calls: ScoredCall[] = expected.map((e, i) => {
    const first = attempts[i]![0];
    const base = { expected: { name: e.name, arguments: e.arguments }, attempts: attempts[i]!.length, answered: answeredBy[i] !== undefined, order: order[i]! };
    if (first === undefined) {
      argsAll += isRecord(e.arguments) ? Object.keys(e.arguments).length : 0;
      return { ...base, actual: null, name: false, exact: false, malformed: false, arguments: {} };
    }
    const a = actual[first]!;
    const malformed = !isRecord(a.arguments);
    const verdicts = malformed ? {} : compareArguments(spec, e.name, e.arguments, a.arguments);
    const values = Object.values(verdicts);
    argsAll += malformed ? (isRecord(e.arguments) ? Object.keys(e.arguments).length : 0) : values.length;
    argsOk += values.filter((v) => v === 'ok').length;
    return { ...base, actual: { name: a.name, arguments: a.arguments }, name: true, exact: answeredBy[i] === first, malformed, arguments: verdicts };
  });
  const extraCalls = extra.map((k) => ({ name: actual[k]!.name, arguments: actual[k]!.arguments }));
  const n = expected.length;
  const exact = calls.filter((c) => c.exact).length;
  const dependent = expected.map((_, i) => i).filter((i) => (replay.dependsOn[i] ?? []).length > 0);
  const laterTurn = turnsOf(record)
    .slice(1)
    .flatMap((t) => t.calls);
  const share = (of: number[], bad: (i: number) => boolean): number | null => (of.length ? of.filter((i) => !bad(i)).length / of.length : null);
  return {
    id: record.id,
    calls,
    extraCalls,
    callScore: n + refused ? exact / (n + refused) : 1,
    exactCallMatch: n ? exact / n : actual.length ? 0 : 1,
    nameMatch: n ? calls.filter((c) => c.name).length / n : actual.length ? 0 : 1,
    argumentAccuracy: argsAll ? argsOk / argsAll : 1,
    precision: actual.length ? (actual.length - refused) / actual.length : 1,
    orderAccuracy: share(dependent, (i) => order[i] === 'before-source'),
    turnAccuracy: share(laterTurn, (i) => order[i] === 'before-turn'),
    refusals,
    passed: exact === n && refused === 0,
  };
}

/** Scores a trajectory: its calls, split into turns by its outcome when the built-in agent made it. */
export function scoreTrajectory(
  spec: Spec,
  record: HarnessRecord,
  t: { calls: readonly { name: string; arguments: unknown }[]; outcome?: { callsPerTurn?: readonly number[] | undefined } | undefined },
): ScenarioScore {
  return scoreScenario(spec, record, t.calls, t.outcome?.callsPerTurn);
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

/** pass^1 … pass^k, the curve of how reliability falls with repeats (empty when k < 1). */
export function passHatCurve(passesPerScenario: readonly { runs: number; passes: number }[], k: number): number[] {
  const out: number[] = [];
  for (let i = 1; i <= k; i++) {
    const v = passHatK(passesPerScenario, i);
    if (v !== null) out.push(v);
  }
  return out;
}

/** The population variance of some numbers (0 for fewer than two). */
export function variance(xs: readonly number[]): number {
  const m = mean(xs);
  if (m === null || xs.length < 2) return 0;
  return xs.reduce((a, b) => a + (b - m) ** 2, 0) / xs.length;
}
