/**
 * Data contracts between the four generation stages (the paper's Appendix F, our names).
 * Every stage output is parsed with one of these before the next stage sees it, so malformed
 * output is caught at the boundary. The `.describe()` texts end up in the JSON Schema an LLM is
 * given for structured output, so they are written for the model as much as for people.
 *
 * The canonical shapes (`AgentCall`, `Scenario`, `ScenarioBatch`, `MockCall`, `MockResult`) hold
 * arguments and outputs as real JSON values: the pipeline, the harness and the offline generator
 * use these. What an LLM stage is asked for is built per request from what the code knows (the
 * tools of a batch, their parameters, the number of calls: `llm/scenarioRequest.ts`,
 * `llm/mock.ts`, `llm/turns.ts`) within the rules of `llm/schemaRules.ts`; the `Llm*` schemas
 * here parse those replies, and the stages decode them into the canonical shapes.
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

/** Stage 1's reply: the interpretation without the tool's name, which the code has (closed, for strict structured output). */
export const LlmToolInterpretation = z.strictObject(ToolInterpretation.omit({ tool_name: true }).shape);
export type LlmToolInterpretation = z.infer<typeof LlmToolInterpretation>;

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

// ---- Per-request reply schemas: what the code knows goes into the schema --------------------

/** Stage 3's reply as parsed: one output per call keyed `call_<i>`, and the final answer (see `llm/mock.ts`). */
export const LlmMockOutputs = z.strictObject({
  outputs: z.record(z.string(), z.unknown()),
  // Text, or (when the outputs hold values known before the reply) the text around one of them,
  // which the code joins: an answer that cannot leave out what it reports (`llm/mock.ts`).
  expected_response: z.union([MockResult.shape.expected_response, z.strictObject({ before: z.string(), value: z.string(), after: z.string() })]),
});
export type LlmMockOutputs = z.infer<typeof LlmMockOutputs>;

/**
 * A request rewritten as segments (`llm/statedValues.ts`): `text_<i>` free text, `value_<i>` a
 * one-value slot the code never reads (it joins its own values between the texts).
 */
export const LlmPromptSegments = z.record(z.string(), z.union([z.string(), z.number()]));
export type LlmPromptSegments = z.infer<typeof LlmPromptSegments>;

/**
 * Stage 4's reply as parsed: the turns in order, each naming the workflow call it ends with
 * (the turn holds the calls after the previous turn's end up to its own), so any reply is a
 * contiguous split (see `llm/turns.ts`).
 */
export const LlmTurnEnds = z.strictObject({
  turns: z.array(
    z.strictObject({
      prompt: Turn.shape.prompt,
      last_call: z
        .number()
        .int()
        .describe(
          "0-based index of the last workflow call the agent makes in this turn; the turn holds every call after the previous turn's last call up to this one.",
        ),
      followup: Turn.shape.followup,
    }),
  ),
});
export type LlmTurnEnds = z.infer<typeof LlmTurnEnds>;
