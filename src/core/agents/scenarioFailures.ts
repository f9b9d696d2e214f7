/**
 * Why a scenario run failed, placed in the record file's text: one failure per expected call the
 * agent missed or got wrong (with the expected and actual arguments as JSON, for a diff), one per
 * call it made that no expected call took, and one per call the mock refused (with the mock's
 * reason, which the agent saw). The editor's Testing view shows these as test messages; the
 * placing is here so it is tested without VS Code.
 */
import { findNodeAtLocation, parseTree, type Node } from 'jsonc-parser';
import { lineColumnIndex, toRange, type TextRange } from '../spec/jsonText';
import type { ScenarioScore } from './score';
import type { TrajectoryCall } from './trajectory';

/** One reason a scenario failed. */
export interface ScenarioFailure {
  kind: 'call' | 'extra' | 'refused';
  /** One line: what went wrong. */
  message: string;
  /** For `call`: the expected and the actual arguments, pretty JSON (`actual` is empty text when the call was missed). */
  expected?: string;
  actual?: string;
  /** Where in the record text: the first wrong argument's key, else the expected call's name; for other kinds the expected calls (or the prompt). */
  range: TextRange | undefined;
}

const pretty = (v: unknown): string => JSON.stringify(v ?? {}, null, 2);
const oneLine = (v: unknown): string => {
  const s = JSON.stringify(v ?? {});
  return s.length > 200 ? `${s.slice(0, 197)}…` : s;
};

/** The failures of a scored scenario; empty when it passed and nothing was refused. */
export function scenarioFailures(score: ScenarioScore, calls: readonly TrajectoryCall[], recordText: string): ScenarioFailure[] {
  const root = parseTree(recordText);
  const at = lineColumnIndex(recordText);
  const place = (node: Node | undefined): TextRange | undefined => (node ? toRange(at, node) : undefined);
  const callNode = (i: number): Node | undefined => (root ? findNodeAtLocation(root, ['expected_tools', i]) : undefined);
  const keyOf = (value: Node | undefined): Node | undefined => value?.parent?.children?.[0];
  const general = (): TextRange | undefined =>
    place(root ? (keyOf(findNodeAtLocation(root, ['expected_tools'])) ?? findNodeAtLocation(root, ['prompt'])) : undefined);
  const out: ScenarioFailure[] = [];
  score.calls.forEach((c, i) => {
    if (c.exact) return;
    const call = callNode(i);
    const name = call ? findNodeAtLocation(call, ['name']) : undefined;
    const actualArgs = c.actual?.arguments;
    if (!c.actual) {
      out.push({
        kind: 'call',
        message: `expected call ${i + 1} ${c.expected.name} was not made`,
        expected: pretty(c.expected.arguments),
        actual: '',
        range: place(name),
      });
      return;
    }
    const bad = Object.entries(c.arguments).filter(([, v]) => v !== 'ok');
    const firstExpected = bad.map(([k]) => (call ? findNodeAtLocation(call, ['arguments', k]) : undefined)).find(Boolean);
    const what = c.malformed
      ? 'its arguments were not a JSON object'
      : bad.length
        ? bad.map(([k, v]) => `${k} ${v}`).join(', ')
        : c.order === 'before-turn'
          ? 'made before the user asked for it'
          : c.order === 'before-source'
            ? 'made before the call it takes a value from'
            : 'refused';
    const retried = c.answered ? ` (first attempt; answered after ${c.attempts - 1} refused)` : '';
    out.push({
      kind: 'call',
      message: `expected call ${i + 1} ${c.expected.name}: ${what}${retried}`,
      expected: pretty(c.expected.arguments),
      actual: pretty(actualArgs),
      range: place(keyOf(firstExpected) ?? name),
    });
  });
  for (const e of score.extraCalls)
    out.push({ kind: 'extra', message: `extra call ${e.name}(${oneLine(e.arguments)}): no expected call takes it`, range: general() });
  for (const c of calls)
    if (c.error !== undefined) out.push({ kind: 'refused', message: `the mock refused ${c.name}(${oneLine(c.arguments)}): ${c.error}`, range: general() });
  return out;
}
