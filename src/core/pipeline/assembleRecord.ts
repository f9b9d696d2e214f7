/**
 * The one builder of a harness record from a generated scenario, its mock outputs and its turns,
 * for the LLM runner and the offline generator alike: the oracle and replay fields are taken from
 * the stage outputs, each used tool's hash goes into the provenance (so a changed tool makes the
 * record stale), and the exact checks are computed.
 */
import { computeChecks } from '../checks/recordChecks';
import { findTool } from '../checks/validateCall';
import { FORMAT_VERSION, type HarnessRecord } from '../harness/format';
import { toolHash } from '../harness/hash';
import type { Spec } from '../spec/model';
import { byCodeUnit } from '../util/byCodeUnit';
import { setOwn } from '../util/ownKeys';

/** What a record is made of. */
export interface RecordParts {
  id: string;
  tier: HarnessRecord['tier'];
  category: string;
  scenario: {
    title: string;
    prompt: string;
    novelty_reason: string;
    agent_followup: string;
    agent_workflow: readonly { name: string; arguments: Record<string, unknown>; explanation: string }[];
  };
  mockWorkflow: readonly { name: string; output: unknown; grounding: HarnessRecord['mock_outputs'][number]['grounding'] }[];
  expectedResponse: string;
  conversation: HarnessRecord['conversation'];
  /** Provenance without the tool hashes (computed here). */
  provenance: Omit<HarnessRecord['provenance'], 'toolHashes'>;
}

/** The hash of every spec tool the calls use, by name in code-unit order. */
export function usedToolHashes(spec: Spec, calls: readonly { name: string }[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...new Set(calls.map((c) => c.name))].sort(byCodeUnit)) {
    const tool = findTool(spec, name);
    if (tool) setOwn(out, name, toolHash(tool));
  }
  return out;
}

/** Whether the spec's tool of that name declares an outputSchema. */
function hasOutputSchema(spec: Spec, name: string): boolean {
  const tool = findTool(spec, name);
  return tool?.outputSchema !== undefined && tool.outputSchema !== null;
}

/** Builds the record and its exact checks. */
export function assembleRecord(spec: Spec, p: RecordParts): HarnessRecord {
  const expected_tools = p.scenario.agent_workflow.map((c) => ({ name: c.name, arguments: c.arguments, explanation: c.explanation }));
  // Whether the tool has an outputSchema is recorded apart from the grounding tier (Table 9 counts only examples).
  const mock_outputs = p.mockWorkflow.map((m) => ({ name: m.name, output: m.output, grounding: m.grounding, outputSchema: hasOutputSchema(spec, m.name) }));
  const checks = computeChecks(spec, { prompt: p.scenario.prompt, expected_tools, mock_outputs, conversation: p.conversation });
  return {
    formatVersion: FORMAT_VERSION,
    id: p.id,
    tier: p.tier,
    category: p.category,
    title: p.scenario.title,
    prompt: p.scenario.prompt,
    expected_tools,
    mock_outputs,
    expected_response: p.expectedResponse,
    conversation: p.conversation,
    novelty_reason: p.scenario.novelty_reason,
    agent_followup: p.scenario.agent_followup,
    provenance: { ...p.provenance, toolHashes: usedToolHashes(spec, expected_tools) },
    checks,
  };
}
