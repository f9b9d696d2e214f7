/**
 * Where an expected call's argument values come from, for the offline realism tests: a string
 * of 3+ characters (not a schema literal) or an integer ID is grounded when the user's words up
 * to that call's turn, or an earlier call's mock output, contain it. Deliberately small: the
 * exact judge's value grounding (`src/core/checks/grounding.ts`) replaces it once merged.
 */
import { appearsIn, isIdName, nameWords, schemaLiterals, textLeaves } from '../../../../src/core/checks/integrity';
import { findTool } from '../../../../src/core/checks/validateCall';
import type { HarnessRecord } from '../../../../src/core/harness/format';
import type { Spec } from '../../../../src/core/spec/model';

/** One argument value found in neither the user's words nor an earlier output. */
export interface Ungrounded {
  call: number;
  param: string;
  value: string | number;
}

/** Whether a value must be grounded: strings of 3+ characters, and integers named like IDs (`id`, `*Number`). */
function mustGround(param: string, value: unknown): value is string | number {
  if (typeof value === 'string') return value.length >= 3;
  const last = nameWords(param).pop() ?? '';
  return typeof value === 'number' && Number.isInteger(value) && (isIdName(param) || /^(number|num)$/.test(last));
}

/** The leaves of an arguments object with their dotted paths; array items take the array's name. */
function leaves(value: unknown, name: string, path: string, out: { param: string; path: string; value: unknown }[]): void {
  if (Array.isArray(value)) value.forEach((v, i) => leaves(v, name, `${path}.${i}`, out));
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) leaves(v, k, path ? `${path}.${k}` : k, out);
  else out.push({ param: name, path, value });
}

/** The user's words a call may draw on: every turn up to the call's own, or the prompt of a single-turn record. */
export function userWords(record: HarnessRecord, call: number): string[] {
  if (!record.conversation.length) return [record.prompt];
  const turn = record.conversation.findIndex((t) => t.calls.includes(call));
  return record.conversation.slice(0, turn < 0 ? record.conversation.length : turn + 1).map((t) => t.prompt);
}

/** Every argument value of a record's expected calls that nothing before it grounds. */
export function ungroundedValues(spec: Spec, record: HarnessRecord): Ungrounded[] {
  const out: Ungrounded[] = [];
  record.expected_tools.forEach((call, j) => {
    const literals = schemaLiterals(findTool(spec, call.name)?.inputSchema);
    const earlier = record.mock_outputs.slice(0, j).flatMap((m) => textLeaves(m.output));
    const words = userWords(record, j);
    const found: { param: string; path: string; value: unknown }[] = [];
    leaves(call.arguments, '', '', found);
    for (const { param, path, value } of found) {
      if (!mustGround(param, value) || literals.has(String(value))) continue;
      if (!appearsIn(value, earlier, words)) out.push({ call: j, param: path, value });
    }
  });
  return out;
}
