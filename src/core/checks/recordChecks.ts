/**
 * The deterministic checks of one record, in one place so every producer (offline generator,
 * LLM runner, repair loop) and the judge compute them the same way.
 */
import type { ConversationTurn, DeterminacyFinding, ExpectedCall, IntegrityViolation, MockOutput, RecordChecks } from '../harness/format';
import type { Spec } from '../spec/model';
import { checkDeterminacy } from './determinacy';
import { checkIntegrity } from './integrity';
import { checkTurns } from './turns';
import { findTool, validateCall, validateOutput, type ValidateCallOptions } from './validateCall';

/** The parts of a record the checks read. */
export interface CheckableRecord {
  prompt: string;
  expected_tools: readonly ExpectedCall[];
  mock_outputs: readonly MockOutput[];
  conversation: readonly ConversationTurn[];
}

/**
 * Computes a record's `checks`: argument validity per call, unknown tools, referential
 * integrity (single-turn view, plus the multi-turn view when there is a conversation), mock
 * output validity against declared outputSchemas, the turn split, and determinacy.
 */
export function computeChecks(spec: Spec, record: CheckableRecord, options: ValidateCallOptions = {}): RecordChecks {
  const callErrors: RecordChecks['callErrors'] = [];
  const unknownTools: string[] = [];
  record.expected_tools.forEach((call, callIndex) => {
    const r = validateCall(spec, call, options);
    if (r.ok) return;
    callErrors.push({ callIndex, name: call.name, errors: r.errors });
    if (r.errors.some((e) => e.kind === 'unknown-tool') && !unknownTools.includes(call.name)) unknownTools.push(call.name);
  });

  const outputs = record.expected_tools.map((_, i) => record.mock_outputs[i]?.output);
  const calls = record.expected_tools;
  const violations: IntegrityViolation[] = checkIntegrity({ calls, outputs, prompt: record.prompt, spec });
  if (record.conversation.length) {
    const seen = new Set(violations.map((v) => `${v.callIndex}|${v.param}|${v.value}`));
    for (const v of checkIntegrity({ calls, outputs, prompt: record.prompt, turns: record.conversation, spec })) {
      const key = `${v.callIndex}|${v.param}|${v.value}`;
      if (!seen.has(key)) {
        seen.add(key);
        violations.push(v);
      }
    }
    violations.sort((a, b) => a.callIndex - b.callIndex);
  }

  const outputErrors: RecordChecks['outputErrors'] = [];
  let anyOutputSchema = false;
  record.expected_tools.forEach((call, callIndex) => {
    const tool = findTool(spec, call.name);
    const mock = record.mock_outputs[callIndex];
    if (!mock) {
      outputErrors.push({ callIndex, message: 'no mock output for this call' });
      return;
    }
    if (mock.name !== call.name) outputErrors.push({ callIndex, message: `mock output is for '${mock.name}', the call is '${call.name}'` });
    if (!tool) return;
    const r = validateOutput(tool, mock.output);
    if (!r) return;
    anyOutputSchema = true;
    for (const message of r.errors) outputErrors.push({ callIndex, message });
  });
  if (record.mock_outputs.length > record.expected_tools.length) {
    outputErrors.push({
      callIndex: record.expected_tools.length,
      message: `${record.mock_outputs.length - record.expected_tools.length} mock output(s) beyond the workflow`,
    });
  }

  const turns = record.conversation.length ? checkTurns(record.conversation, record.expected_tools, spec) : undefined;
  const determinacy = determinacyFindings(spec, record, outputs);
  return {
    schemaValid: callErrors.length === 0,
    callErrors,
    unknownTools,
    integrityViolations: violations,
    mockOutputsValid: anyOutputSchema || outputErrors.length ? outputErrors.length === 0 : null,
    outputErrors,
    turnCoverage: turns ? turns.coverage : null,
    turnProblems: turns ? turns.problems : [],
    determinacy,
  };
}

/**
 * Determinacy findings of both views a judge reads (the prompt with every call; the conversation's
 * turns), each value once.
 */
function determinacyFindings(spec: Spec, record: CheckableRecord, outputs: readonly unknown[]): DeterminacyFinding[] {
  const calls = record.expected_tools;
  const views = [[{ prompt: record.prompt, calls: calls.map((_, i) => i) }]];
  if (record.conversation.length) views.push(record.conversation.map((t) => ({ prompt: t.prompt, calls: t.calls })));
  const seen = new Set<string>();
  const out: DeterminacyFinding[] = [];
  for (const turns of views) {
    for (const f of checkDeterminacy({ calls, outputs, turns, spec }).findings) {
      const key = `${f.callIndex}|${f.param}|${f.kind}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(f);
    }
  }
  return out.sort((a, b) => a.callIndex - b.callIndex);
}
