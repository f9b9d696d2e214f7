/**
 * Judge findings placed in a record file's text, for inline diagnostics: a finding about an
 * argument lands on that argument's key in `expected_tools[i].arguments`, one about a call on
 * the call's `name`, anything else on the record's `prompt`.
 */
import { findNodeAtLocation, parseTree, type Node } from 'jsonc-parser';
import { lineColumnIndex, toRange, type TextRange } from '../spec/jsonText';
import { subdimensionLabel } from '../vocabulary';
import { StoredJudgment, type StoredFinding } from './schemas';

export interface JudgmentDiagnostic {
  /** The sub-dimension, e.g. `arguments.value`: the diagnostic's code. */
  code: string;
  severity: 'error' | 'warning' | 'info';
  message: string;
  judgeId: string;
  range: TextRange;
}

/** A finding at or below this score is an error; above, a warning. */
const ERROR_AT_OR_BELOW = 0.3;

/** Where a finding belongs in the record text. */
function nodeFor(root: Node, f: StoredFinding): Node | undefined {
  if (f.callIndex === null) return findNodeAtLocation(root, ['prompt']);
  const call = findNodeAtLocation(root, ['expected_tools', f.callIndex]);
  if (!call) return findNodeAtLocation(root, ['prompt']);
  if (f.param) {
    // A nested value's finding (`filter.ids.0`) lands on its own key or array element.
    const nested = f.param.split('.').map((k) => (/^\d+$/.test(k) ? Number(k) : k));
    const value = findNodeAtLocation(call, ['arguments', f.param]) ?? findNodeAtLocation(call, ['arguments', ...nested]);
    // The key node (the property's first child) reads better than a long value; an array element is its own node.
    if (value?.parent?.type === 'array') return value;
    const key = value?.parent?.children?.[0];
    if (key) return key;
    return findNodeAtLocation(call, ['arguments']) ?? findNodeAtLocation(call, ['name']);
  }
  return findNodeAtLocation(call, ['name']);
}

/**
 * Diagnostics for every unwaived finding of every judgment (or of one judge) in a record's text.
 * Oracle-mode findings point into an agent's calls, not the record, so they are left out.
 */
export function judgmentDiagnostics(text: string, judgeId?: string): JudgmentDiagnostic[] {
  const root = parseTree(text);
  if (!root) return [];
  const judgments = findNodeAtLocation(root, ['judgments']);
  if (!judgments || judgments.type !== 'object') return [];
  const out: JudgmentDiagnostic[] = [];
  const at = lineColumnIndex(text);
  for (const prop of judgments.children ?? []) {
    const id = prop.children?.[0]?.value;
    const valueNode = prop.children?.[1];
    if (typeof id !== 'string' || !valueNode || (judgeId && id !== judgeId)) continue;
    let parsed;
    try {
      parsed = StoredJudgment.safeParse(JSON.parse(text.slice(valueNode.offset, valueNode.offset + valueNode.length)));
    } catch {
      continue;
    }
    if (!parsed.success || parsed.data.judge.mode !== 'unsupervised') continue;
    for (const f of parsed.data.findings) {
      if (f.waived || f.score >= 1) continue;
      const node = nodeFor(root, f);
      if (!node) continue;
      out.push({
        code: f.subdimension,
        severity: f.score <= ERROR_AT_OR_BELOW ? 'error' : 'warning',
        message: `${subdimensionLabel(f.subdimension)} ${f.score.toFixed(1)}: ${f.reason} (${id})`,
        judgeId: id,
        range: toRange(at, node),
      });
    }
  }
  return out;
}

/**
 * Where the scenario panel's "Open JSON" lands in a record's text: the call's `name` in
 * `expected_tools[callIndex]`, else the record's `title` (null call, or a call the text lacks).
 * Offset 0 when the text does not parse.
 */
export function recordCallOffset(text: string, callIndex: number | null): number {
  const root = parseTree(text);
  if (!root) return 0;
  const node = (callIndex === null ? undefined : findNodeAtLocation(root, ['expected_tools', callIndex, 'name'])) ?? findNodeAtLocation(root, ['title']);
  // The property's key reads better than its value as a place to land.
  return node?.parent?.children?.[0]?.offset ?? node?.offset ?? 0;
}

/**
 * Where each finding of a record lands in its text, by the rule of {@link judgmentDiagnostics};
 * for findings of any view (the conversation's too: its calls are the record's `expected_tools`).
 * Undefined for every finding when the text does not parse.
 */
export function findingLocator(text: string): (f: StoredFinding) => TextRange | undefined {
  const root = parseTree(text);
  if (!root) return () => undefined;
  const at = lineColumnIndex(text);
  return (f) => {
    const node = nodeFor(root, f);
    return node ? toRange(at, node) : undefined;
  };
}
