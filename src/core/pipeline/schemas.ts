/**
 * Data contracts between the four generation stages (the paper's Appendix F, our names).
 * Every stage output is parsed with one of these before the next stage sees it, so malformed
 * output is caught at the boundary. The `.describe()` texts end up in the JSON Schema an LLM is
 * given for structured output, so they are written for the model as much as for people.
 *
 * Two shapes of the call-carrying schemas exist:
 * - the canonical ones (`AgentCall`, `Scenario`, `ScenarioBatch`, `MockCall`, `MockResult`) hold
 *   arguments and outputs as real JSON values: the pipeline, the harness and the offline
 *   generator use these;
 * - the `Llm*` variants hold them as JSON *strings* (`arguments_json`, `output_json`), because a
 *   free-form object has no fixed properties and structured-output modes (Gemini
 *   `responseJsonSchema`, OpenAI strict `json_schema`) either reject it or force it empty.
 *   **LLM stages request the `Llm*` schema and convert the reply with `scenarioBatchFromLlm` /
 *   `mockResultFromLlm`**, whose errors are phrased to be sent back to the model on a re-ask.
 */
import { z } from 'zod';
import { Grounding } from '../harness/format';

/** Stage 1 output: one tool explained for scenario writing. */
export const ToolInterpretation = z.object({
  tool_name: z.string().describe('The tool name, exactly as given.'),
  what_it_does: z.string().describe("Complete explanation of the tool's functionality and what it aims to do, grounded in the tool info."),
  what_it_needs: z.string().describe('Which parameters the tool needs and how they should be formatted.'),
  why_its_used: z.string().describe('Reasons an agent would call this tool; potential use cases.'),
  enterprise_context: z.array(z.string()).describe('Short tags for what aspects of an enterprise this tool could help with.'),
});
export type ToolInterpretation = z.infer<typeof ToolInterpretation>;

/** One function call in a workflow (canonical shape: arguments as a JSON object). */
export const AgentCall = z.object({
  name: z.string().describe('Tool name, exactly as listed in the available tools.'),
  arguments: z.record(z.string(), z.unknown()).describe("Arguments object with realistic values that satisfy the tool's parameter schema."),
  explanation: z.string().describe('One sentence on why the agent makes this call at this point.'),
});
export type AgentCall = z.infer<typeof AgentCall>;

/** Stage 2 output: one scenario with its expected workflow. */
export const Scenario = z.object({
  title: z.string().describe('Short title of the scenario.'),
  prompt: z.string().describe("The user's request in natural language, including any names or identifiers the user would know."),
  agent_workflow: z.array(AgentCall).min(1).describe('The exact ordered function calls the agent should make.'),
  novelty_reason: z.string().describe('Why this scenario is valuable for evaluating an agent.'),
  agent_followup: z.string().describe('A natural follow-up question or offer from the agent after completing the task.'),
});
export type Scenario = z.infer<typeof Scenario>;

/** Stage 2 output: scenarios grouped by category. */
export const ScenarioBatch = z.object({
  categories: z
    .array(
      z.object({
        category: z.string().describe('Category name, e.g. a business area or entity family.'),
        scenarios: z.array(Scenario).describe('Scenarios in this category.'),
      }),
    )
    .describe('Scenarios organised by category.'),
});
export type ScenarioBatch = z.infer<typeof ScenarioBatch>;

/** Stage 3: one call with its synthetic output. */
export const MockCall = AgentCall.extend({
  output: z.unknown().describe('Realistic JSON the tool would return for this call.'),
  /** Reference material behind the output. */
  grounding: Grounding,
});
export type MockCall = z.infer<typeof MockCall>;

/** Stage 3 output: the workflow with outputs, plus the final answer. */
export const MockResult = z.object({
  mock_workflow: z.array(MockCall).describe('The workflow calls in the same order, each with its mock output.'),
  expected_response: z
    .string()
    .describe('The final answer to the user, citing concrete values (names, IDs, counts, statuses, dates) from the outputs of the whole workflow.'),
});
export type MockResult = z.infer<typeof MockResult>;

/** Stage 4: one user turn. */
export const Turn = z.object({
  prompt: z.string().describe('What the user says in this turn; later turns react to concrete values from earlier tool outputs.'),
  calls: z.array(z.number().int().nonnegative()).describe('0-based indices into the workflow of the calls the agent makes in this turn.'),
  followup: z.string().describe('What the agent reports at the end of this turn: concrete results, not narration of future actions.'),
});
export type Turn = z.infer<typeof Turn>;

/** Stage 4 output. A split with fewer than two turns is discarded by the runner. */
export const TurnSplit = z.object({
  turns: z.array(Turn).describe('The conversation turns; every workflow call appears in exactly one turn.'),
});
export type TurnSplit = z.infer<typeof TurnSplit>;

// ---- LLM wire variants: JSON values travel as strings -------------------------------------

/** `AgentCall` for structured output: arguments as a JSON string. */
export const LlmAgentCall = z.object({
  name: AgentCall.shape.name,
  arguments_json: z
    .string()
    .describe('The arguments as a JSON object encoded in a string, e.g. "{\\"owner\\": \\"acme\\"}". Values must satisfy the tool\'s parameter schema.'),
  explanation: AgentCall.shape.explanation,
});
export type LlmAgentCall = z.infer<typeof LlmAgentCall>;

/** `Scenario` for structured output. */
export const LlmScenario = Scenario.extend({
  agent_workflow: z.array(LlmAgentCall).min(1).describe('The exact ordered function calls the agent should make.'),
});
export type LlmScenario = z.infer<typeof LlmScenario>;

/** `ScenarioBatch` for structured output. */
export const LlmScenarioBatch = z.object({
  categories: z
    .array(z.object({ category: z.string().describe('Category name, e.g. a business area or entity family.'), scenarios: z.array(LlmScenario) }))
    .describe('Scenarios organised by category.'),
});
export type LlmScenarioBatch = z.infer<typeof LlmScenarioBatch>;

/** `MockCall` for structured output: arguments and output as JSON strings. */
export const LlmMockCall = LlmAgentCall.extend({
  output_json: z.string().describe('The mock tool output as JSON encoded in a string.'),
  grounding: Grounding,
});
export type LlmMockCall = z.infer<typeof LlmMockCall>;

/** `MockResult` for structured output. */
export const LlmMockResult = z.object({
  mock_workflow: z.array(LlmMockCall).describe('The workflow calls in the same order, each with its mock output.'),
  expected_response: MockResult.shape.expected_response,
});
export type LlmMockResult = z.infer<typeof LlmMockResult>;

/** Result of converting an LLM reply: the canonical value, or errors to send back on a re-ask. */
export type FromLlm<T> = { ok: true; value: T } | { ok: false; errors: string[] };

function parseJsonField(text: string, where: string, errors: string[], wantObject: boolean): unknown {
  try {
    const value: unknown = JSON.parse(text);
    if (wantObject && (value === null || typeof value !== 'object' || Array.isArray(value))) {
      errors.push(`${where}: must encode a JSON object, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`);
      return undefined;
    }
    return value;
  } catch (e) {
    errors.push(`${where}: not valid JSON (${(e as Error).message})`);
    return undefined;
  }
}

/** Canonical call → wire call. */
export function agentCallToLlm(call: AgentCall): LlmAgentCall {
  return { name: call.name, arguments_json: JSON.stringify(call.arguments), explanation: call.explanation };
}

/** Wire call → canonical call; `where` prefixes error messages (e.g. `categories[0].scenarios[1].agent_workflow[2]`). */
export function agentCallFromLlm(call: LlmAgentCall, where = 'call'): FromLlm<AgentCall> {
  const errors: string[] = [];
  const args = parseJsonField(call.arguments_json, `${where}.arguments_json`, errors, true);
  if (errors.length) return { ok: false, errors };
  return { ok: true, value: { name: call.name, arguments: args as Record<string, unknown>, explanation: call.explanation } };
}

/** Converts a stage-2 LLM reply (already parsed with `LlmScenarioBatch`) to the canonical batch. */
export function scenarioBatchFromLlm(batch: LlmScenarioBatch): FromLlm<ScenarioBatch> {
  const errors: string[] = [];
  const categories = batch.categories.map((cat, ci) => ({
    category: cat.category,
    scenarios: cat.scenarios.map((s, si) => ({
      ...s,
      agent_workflow: s.agent_workflow.flatMap((c, wi) => {
        const r = agentCallFromLlm(c, `categories[${ci}].scenarios[${si}].agent_workflow[${wi}]`);
        if (!r.ok) {
          errors.push(...r.errors);
          return [];
        }
        return [r.value];
      }),
    })),
  }));
  return errors.length ? { ok: false, errors } : { ok: true, value: { categories } };
}

/** Canonical batch → wire batch (for few-shot examples and tests). */
export function scenarioBatchToLlm(batch: ScenarioBatch): LlmScenarioBatch {
  return {
    categories: batch.categories.map((c) => ({
      category: c.category,
      scenarios: c.scenarios.map((s) => ({ ...s, agent_workflow: s.agent_workflow.map(agentCallToLlm) })),
    })),
  };
}

/** Converts a stage-3 LLM reply (already parsed with `LlmMockResult`) to the canonical result. */
export function mockResultFromLlm(result: LlmMockResult): FromLlm<MockResult> {
  const errors: string[] = [];
  const mock_workflow: MockCall[] = [];
  result.mock_workflow.forEach((c, i) => {
    const where = `mock_workflow[${i}]`;
    const before = errors.length;
    const args = parseJsonField(c.arguments_json, `${where}.arguments_json`, errors, true);
    const output = parseJsonField(c.output_json, `${where}.output_json`, errors, false);
    if (errors.length === before) {
      mock_workflow.push({ name: c.name, arguments: args as Record<string, unknown>, explanation: c.explanation, output, grounding: c.grounding });
    }
  });
  return errors.length ? { ok: false, errors } : { ok: true, value: { mock_workflow, expected_response: result.expected_response } };
}

/** Canonical mock result → wire result. */
export function mockResultToLlm(result: MockResult): LlmMockResult {
  return {
    mock_workflow: result.mock_workflow.map((c) => ({
      ...agentCallToLlm(c),
      output_json: JSON.stringify(c.output ?? null),
      grounding: c.grounding,
    })),
    expected_response: result.expected_response,
  };
}
