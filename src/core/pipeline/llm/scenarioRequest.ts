/**
 * Stage 2's reply schema, built per batch from what the code knows. A batch asks for a fixed
 * number of scenarios by position (`scenario_1` … `scenario_N`, all required), and each slot names
 * its focus tool: the slot's `focus_call` can only be a call of that tool, so the tools a batch is
 * meant to cover are covered by the schema, not by the prose. The calls around it
 * (`calls_before`, `calls_after`) are calls of the batch's tools; every call's `name` is an enum
 * of one tool and its `arguments` the tool's own parameters (`argumentSchema.ts`). A complex slot
 * needs at least one call after its focus call (two calls at least, as the tier requires); a
 * simple slot has none before or after it (one call, as the tier requires).
 */
import { z } from 'zod';
import type { Tier } from '../../harness/format';
import type { Tool } from '../../spec/model';
import type { AgentCall, Scenario } from '../schemas';
import { argumentSchema, type ArgumentSchema } from './argumentSchema';

type Json = Record<string, unknown>;

/** One requested scenario: the tool it must call, and the tool listed first for the calls after it. */
export interface ScenarioSlot {
  focus: string;
  /** Listed first among the calls after the focus call (a different tool, when the batch has one). */
  next: string;
}

const LlmCall = z.strictObject({ name: z.string(), arguments: z.unknown(), explanation: z.string() });
const LlmSlot = z.strictObject({
  category: z.string(),
  title: z.string(),
  prompt: z.string(),
  calls_before: z.array(LlmCall),
  focus_call: LlmCall,
  calls_after: z.array(LlmCall),
  novelty_reason: z.string(),
  agent_followup: z.string(),
});
/** A stage-2 reply as parsed (the enums and arguments are checked against the spec afterwards). */
export type LlmScenarioSlots = Record<string, z.infer<typeof LlmSlot>>;

/** The name of slot `i` (0-based) in the reply. */
export const slotKey = (i: number): string => `scenario_${i + 1}`;

/** A batch's request: the schema sent, the parser, and the decoder of each slot. */
export interface ScenarioRequest {
  jsonSchema: Json;
  schema: z.ZodType<LlmScenarioSlots>;
  /** The slot's scenario with arguments as the tools expect them (unvalidated), its category, and where each call came from. */
  decode: (value: LlmScenarioSlots, slot: number) => { category: string; scenario: Scenario; where: string[] };
}

const text = (description: string): Json => ({ type: 'string', description });

/** The request of a batch of `slots` over `tools` (each slot's focus and next tools among them). */
export function scenarioRequest(tools: readonly Tool[], slots: readonly ScenarioSlot[], tier: Tier | undefined): ScenarioRequest {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const args = new Map<string, ArgumentSchema>();
  const defs: Json = {};
  const defOf = new Map<string, string>();
  tools.forEach((t, i) => {
    const a = argumentSchema(t.inputSchema);
    args.set(t.name, a);
    const def = `call_${i}`;
    defOf.set(t.name, def);
    defs[def] = {
      type: 'object',
      properties: {
        name: { type: 'string', enum: [t.name] },
        arguments: a.schema,
        explanation: text('One sentence on why the agent makes this call at this point.'),
      },
      required: ['name', 'arguments', 'explanation'],
      additionalProperties: false,
    };
  });
  const names = tools.map((t) => t.name);
  const ref = (name: string): Json => ({ $ref: `#/$defs/${defOf.get(name)}` });
  // Any tool of the batch, listed from `first` on (the order means nothing to the schema).
  const anyCall = (first: string): Json => {
    const k = Math.max(0, names.indexOf(first));
    return { anyOf: [...names.slice(k), ...names.slice(0, k)].map(ref) };
  };
  const properties: Json = {};
  slots.forEach((s, i) => {
    const after: Json = { type: 'array', items: anyCall(s.next), description: 'The calls after the focus call, in order.' };
    const before: Json = { type: 'array', items: anyCall(s.next), description: 'The calls before the focus call, in order.' };
    if (tier === 'complex') after.minItems = 1;
    // A simple scenario is its one focus call: said in the schema, not left to the prose (a model
    // free to add calls made simple batches complex ones, and the simple tier fell short).
    if (tier === 'simple') before.maxItems = after.maxItems = 0;
    properties[slotKey(i)] = {
      type: 'object',
      properties: {
        category: text('Category: a business area or a family of entities.'),
        title: text('Short title of the scenario.'),
        prompt: text("The employee's request, with every name or identifier they know."),
        calls_before: before,
        focus_call: ref(s.focus),
        calls_after: after,
        novelty_reason: text('Why this scenario is valuable for evaluating an agent.'),
        agent_followup: text('A natural follow-up question or offer from the agent after completing the task.'),
      },
      required: ['category', 'title', 'prompt', 'calls_before', 'focus_call', 'calls_after', 'novelty_reason', 'agent_followup'],
      additionalProperties: false,
    };
  });
  const keys = slots.map((_, i) => slotKey(i));
  const jsonSchema: Json = { type: 'object', properties, required: keys, additionalProperties: false, $defs: defs };
  const schema = z.strictObject(Object.fromEntries(keys.map((k) => [k, LlmSlot]))) as unknown as z.ZodType<LlmScenarioSlots>;
  const decode: ScenarioRequest['decode'] = (value, i) => {
    const s = value[slotKey(i)]!;
    const where: string[] = [];
    const call = (c: z.infer<typeof LlmCall>, at: string): AgentCall => {
      where.push(at);
      const a = args.get(c.name);
      // A name outside the batch is left as it is: the spec check reports it.
      const decoded = a && byName.has(c.name) ? a.decode(c.arguments) : c.arguments;
      return { name: c.name, arguments: decoded as Record<string, unknown>, explanation: c.explanation };
    };
    const at = slotKey(i);
    const calls = [
      ...s.calls_before.map((c, j) => call(c, `${at}.calls_before[${j}]`)),
      call(s.focus_call, `${at}.focus_call`),
      ...s.calls_after.map((c, j) => call(c, `${at}.calls_after[${j}]`)),
    ];
    return {
      category: s.category,
      scenario: { title: s.title, prompt: s.prompt, agent_workflow: calls, novelty_reason: s.novelty_reason, agent_followup: s.agent_followup },
      where,
    };
  };
  return { jsonSchema, schema, decode };
}

/**
 * The slots of a batch of `count` scenarios over `tools`: focus tools in turn from `offset`
 * (so a group's simple and complex batches start on different tools), each followed by the next tool.
 */
export function planSlots(tools: readonly string[], count: number, offset = 0): ScenarioSlot[] {
  if (!tools.length) return [];
  return Array.from({ length: count }, (_, i) => {
    const k = (offset + i) % tools.length;
    return { focus: tools[k]!, next: tools[(k + 1) % tools.length]! };
  });
}
