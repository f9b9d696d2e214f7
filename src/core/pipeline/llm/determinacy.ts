/**
 * Stage 3 held to the determinacy bar (issue 20, `checks/determinacy.ts`): every value a later
 * call takes from an earlier output must be one the user's words pick out, and every output must
 * agree with its own call. The mock stage checks the model's outputs with the same exact rule the
 * record's checks use (single-prompt view: the user's request with every call, the view the mock
 * prompt shows), re-asks with each finding's message and what to change, and when the re-asks run
 * out repairs what code can repair, at the smallest unit:
 * - a value taken from one item of a list the user does not pick: the list is cut to that item
 *   (`mock:undetermined-list-cut`), so "list the channels" returns the one channel the next call
 *   reads, the only way a fair agent could know which one was meant;
 * - an output that contradicts its call (a read of X about Y, "create name=a" answered with name
 *   "b"): the output's field is set to the call's value (`mock:undetermined-output-set`).
 * A repair is kept only when the outputs still validate against their outputSchemas, no
 * integrity violation appears, and the finding is gone; otherwise the scenario is discarded as
 * `mock:undetermined`.
 *
 * A number the user stated for another call (`reused-statement`) is in the scenario's words and
 * arguments, which the mock cannot change: it is not the mock's finding (the record's checks and
 * the final gate in `llmRun.ts` still see it).
 */
import type { DeterminacyFinding } from '../../harness/format';
import { BULLET, checkDeterminacy, holdsValue } from '../../checks/determinacy';
import { jsonDocument, leafHolds, valueClass, type ValueClass } from '../../checks/grounding';
import { checkIntegrity, isIdName } from '../../checks/integrity';
import { findTool, validateOutput } from '../../checks/validateCall';
import type { Spec } from '../../spec/model';
import { isRecord } from '../../util/isRecord';
import type { Scenario } from '../schemas';
import type { Problem } from './ask';

/** Problem category of a determinacy finding in stage 3 (and its discard reason, `mock:undetermined`). */
export const UNDETERMINED = 'undetermined';

/** The deterministic fixes, counted as `mock:<fix>`. */
export type DeterminacyFix = 'undetermined-list-cut' | 'undetermined-output-set';

/** The findings the mock's outputs can fix: all but a number reused from the user's words. */
const MOCK_KINDS: ReadonlySet<DeterminacyFinding['kind']> = new Set(['item-not-identified', 'read-mismatch', 'output-contradicts-call']);

/** The determinacy findings of a scenario's outputs that the mock can fix, in the single-prompt view (as `computeChecks` reads it). */
export function mockDeterminacy(spec: Spec, scenario: Scenario, outputs: readonly unknown[]): DeterminacyFinding[] {
  const calls = scenario.agent_workflow;
  return checkDeterminacy({ calls, outputs, turns: [{ prompt: scenario.prompt, calls: calls.map((_, i) => i) }], spec }).findings.filter((f) =>
    MOCK_KINDS.has(f.kind),
  );
}

/** Whether call `i`'s output, among `outputs`, contradicts its own call (a read about another thing, a field named like an argument holding another value). */
export function contradictsOwnCall(spec: Spec, scenario: Scenario, outputs: readonly unknown[], i: number): boolean {
  return mockDeterminacy(spec, scenario, outputs).some((f) => f.callIndex === i && f.kind !== 'item-not-identified');
}

/** The earlier call whose output a finding's value was taken from (the check says it in its message). */
function sourceCall(f: DeterminacyFinding): number | undefined {
  const m = /in call (\d+)'s output/.exec(f.message);
  return m ? Number(m[1]) : undefined;
}

/** A re-ask message for a finding: the finding in the check's words, then what to change. */
export function determinacyProblem(scenario: Scenario, f: DeterminacyFinding, outputKey: (i: number) => string): Problem {
  const calls = scenario.agent_workflow;
  const at = `Call ${f.callIndex} (${calls[f.callIndex]?.name})`;
  const value = JSON.stringify(f.value);
  let fix: string;
  if (f.kind === 'item-not-identified') {
    const src = sourceCall(f);
    const where = src !== undefined ? `outputs.${outputKey(src)} (${calls[src]?.name})` : 'the earlier output';
    fix = `make the list in ${where} hold only the item with ${value}, or give that item a name, title or other field that the user's request states word for word and no other item holds.`;
  } else if (f.kind === 'read-mismatch') {
    fix = `outputs.${outputKey(f.callIndex)} must be about ${value}: a read of ${value} returns ${value} (with "${f.param}" ${value}), not another one.`;
  } else {
    fix = `outputs.${outputKey(f.callIndex)} must echo the call's own ${f.param} ${value}: a call returns what it was given (a create returns it plus a new id).`;
  }
  return { category: UNDETERMINED, message: `${at}: ${f.message}. Fix: ${fix}` };
}

/** The class of a finding's value, as the check classes it (by the last path segment that is not an index). */
function classOf(f: DeterminacyFinding): ValueClass {
  const leaf =
    f.param
      .split('.')
      .filter((x) => !/^\d+$/.test(x))
      .pop() ?? f.param;
  return valueClass(leaf, f.value);
}

/**
 * A copy of an output in which every list of two or more items where only some items hold
 * `value` keeps only the first of those (JSON arrays, JSON documents inside text, texts of
 * bulleted lines; the other lines of a text stay). Lists where no item or every item holds it are
 * left as they are (their insides are still cut).
 */
export function cutLists(output: unknown, value: string | number, cls: ValueClass, depth = 0): unknown {
  if (depth > 64) return output;
  if (typeof output === 'string') {
    const doc = jsonDocument(output);
    if (doc !== undefined) {
      const cut = cutLists(doc, value, cls, depth + 1);
      return cut === doc ? output : JSON.stringify(cut, null, output.includes('\n') ? 2 : undefined);
    }
    if (!output.includes('\n')) return output;
    const lines = output.split('\n');
    const bullets = lines.filter((l) => BULLET.test(l));
    const holders = bullets.filter((l) => leafHolds(l, false, value, cls));
    if (bullets.length < 2 || !holders.length || holders.length === bullets.length) return output;
    const keep = holders[0];
    return lines.filter((l) => !BULLET.test(l) || l === keep).join('\n');
  }
  if (Array.isArray(output)) {
    if (output.length >= 2) {
      const first = output.find((x) => holdsValue(x, value, cls));
      if (first !== undefined && !output.every((x) => holdsValue(x, value, cls))) return [cutLists(first, value, cls, depth + 1)];
    }
    let changed = false;
    const next = output.map((x) => {
      const c = cutLists(x, value, cls, depth + 1);
      if (c !== x) changed = true;
      return c;
    });
    return changed ? next : output;
  }
  if (isRecord(output)) {
    let changed = false;
    const next = Object.fromEntries(
      Object.entries(output).map(([k, x]) => {
        const c = cutLists(x, value, cls, depth + 1);
        if (c !== x) changed = true;
        return [k, c];
      }),
    );
    return changed ? next : output;
  }
  return output;
}

const squash = (k: string): string => k.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * A copy of an output whose subject (the root object, or the one object a single-key wrapper
 * holds, JSON text too) has the call's value under the argument's name, or under `id` for a read
 * of its own id; undefined when it has no such field to set.
 */
export function setSubjectField(output: unknown, param: string, value: string | number, depth = 0): unknown {
  if (depth > 3) return undefined;
  if (typeof output === 'string') {
    const doc = jsonDocument(output);
    if (doc === undefined) return undefined;
    const set = setSubjectField(doc, param, value, depth + 1);
    return set === undefined ? undefined : JSON.stringify(set, null, output.includes('\n') ? 2 : undefined);
  }
  if (!isRecord(output)) return undefined;
  const entries = Object.entries(output);
  const keys = [param, ...(isIdName(param) ? ['id'] : [])].map(squash);
  for (const want of keys) {
    const key = Object.keys(output).find((k) => squash(k) === want);
    const shown = key === undefined ? undefined : output[key];
    if (key !== undefined && (typeof shown === 'string' || typeof shown === 'number')) return { ...output, [key]: value };
  }
  // A single-key wrapper (`{result: {...}}`, `{result: "{...}"}`): its one object is the subject.
  if (entries.length === 1) {
    const [k, inner] = entries[0]!;
    const set = setSubjectField(inner, param, value, depth + 1);
    return set === undefined ? undefined : { [k]: set };
  }
  return undefined;
}

const keyOf = (f: DeterminacyFinding): string => `${f.callIndex}|${f.param}|${f.kind}`;

/**
 * Repairs what code can of the mock's determinacy findings (see the module doc). Each candidate
 * change is kept only when the changed output still validates against its tool's outputSchema,
 * no integrity violation appears and the finding is gone without a new one; returns the outputs
 * and the fixes made, or undefined when some finding remains.
 */
export function repairDeterminacy(spec: Spec, scenario: Scenario, outputs: readonly unknown[]): { outputs: unknown[]; fixes: DeterminacyFix[] } | undefined {
  const calls = scenario.agent_workflow;
  let current = [...outputs];
  let findings = mockDeterminacy(spec, scenario, current);
  const fixes: DeterminacyFix[] = [];
  const integrityBefore = checkIntegrity({ calls, outputs: current, prompt: scenario.prompt, spec }).length;
  const valid = (i: number, o: unknown): boolean => {
    const tool = findTool(spec, calls[i]?.name ?? '');
    return !tool || validateOutput(tool, o)?.ok !== false;
  };
  for (let guard = 0; findings.length && guard < 4 * calls.length + 8; guard++) {
    let progressed = false;
    for (const f of findings) {
      for (const { index, output, fix } of candidates(f, current)) {
        if (output === undefined || output === current[index] || !valid(index, output)) continue;
        const next = [...current];
        next[index] = output;
        if (checkIntegrity({ calls, outputs: next, prompt: scenario.prompt, spec }).length > integrityBefore) continue;
        const after = mockDeterminacy(spec, scenario, next);
        const before = new Set(findings.map(keyOf));
        if (after.some((a) => keyOf(a) === keyOf(f)) || after.some((a) => !before.has(keyOf(a)))) continue;
        current = next;
        findings = after;
        fixes.push(fix);
        progressed = true;
        break;
      }
      if (progressed) break;
    }
    if (!progressed) break;
  }
  return findings.length ? undefined : { outputs: current, fixes };
}

/** Candidate changes for one finding, best first. */
function candidates(f: DeterminacyFinding, outputs: readonly unknown[]): { index: number; output: unknown; fix: DeterminacyFix }[] {
  if (f.kind === 'item-not-identified') {
    const cls = classOf(f);
    const src = sourceCall(f);
    // The output the check names first, then the others before the call, nearest first.
    const order = [...(src !== undefined ? [src] : []), ...Array.from({ length: f.callIndex }, (_, k) => f.callIndex - 1 - k).filter((i) => i !== src)];
    return order.map((index) => ({ index, output: cutLists(outputs[index], f.value, cls), fix: 'undetermined-list-cut' as const }));
  }
  return [
    { index: f.callIndex, output: setSubjectField(outputs[f.callIndex], f.param.split('.')[0] ?? f.param, f.value), fix: 'undetermined-output-set' as const },
  ];
}
