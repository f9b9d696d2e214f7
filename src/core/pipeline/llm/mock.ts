/**
 * Stage 3 with a model: one request per scenario for every call's output and the final answer.
 *
 * ## Shared state (the review's fix for cross-call referential integrity)
 * Every ID-like argument of a later call that the user did not say is fixed in an earlier
 * output's slot of the reply schema (`./pins.ts`: a one-value enum in the field a reader looks
 * at, and each call's own ids echoed), and the prompt states where. Only a value no earlier
 * slot can hold is left to the prose. The reply is then checked with the same
 * deterministic rule the harness reports (`checkIntegrity`); violations are re-asked with the
 * exact value and place. If the re-asks run out, the missing values are planted into the
 * model's outputs (`plantValue`); when that fails the scenario is discarded (counted), or filled
 * by the offline mock generator only when the run asked for that fallback. The record says which
 * way its outputs became consistent ({@link MockIntegrity}). A request lost in transport is not
 * filled in: the scenario gets no mock outputs (and no record), and the item counts as failed.
 *
 * ## The reply ({@link mockReplySchema})
 * The outputs are asked for by position, exactly one per call (`call_0` …, all required): the
 * model never echoes the names and arguments, which the code has and attaches. A tool that
 * declares an outputSchema gets it as the shape of its output; for the others the output is JSON
 * or text in a string, and text that is not JSON is kept as text (tools return text as often as
 * JSON). Outputs must validate against the tool's outputSchema. An answer that quotes no value of the outputs is
 * re-asked, then kept and counted (`mock:response-not-grounded-kept`).
 *
 * ## Determinacy (issue 20, `./determinacy.ts`)
 * The outputs are also checked with `checkDeterminacy`, as the record's checks read them: a value
 * a later call takes from one item of a list of several must be picked by the user's words (or
 * the list hold that one item), and a call's output must be about the call's own values (a read
 * of X returns X). Findings are re-asked with the finding and what to change; when the re-asks
 * run out the code cuts the list to the item used or sets the output's field to its call's value
 * (`mock:undetermined-list-cut`, `mock:undetermined-output-set`), and a scenario it cannot repair
 * is discarded (`mock:undetermined`). The record says which way ({@link MockOutcome.determinacy},
 * `provenance.determinacy`).
 *
 * ## Grounding
 * Decided here, not by the model: `high` when the tool has example outputs or an outputSchema,
 * `medium` when a tool of the same entity has, `low` otherwise.
 */
import type { Grounding, IntegrityViolation } from '../../harness/format';
import type { Tool } from '../../spec/model';
import { checkIntegrity, containsToken } from '../../checks/integrity';
import { mockOffline } from '../offline';
import { chainSources } from '../offline/chain';
import { plantValue } from '../offline/mock';
import { analysisOf } from '../offline/scenarios';
import { LlmMockOutputs, MockResult, type MockCall, type Scenario } from '../schemas';
import type { ArgumentSchema } from './argumentSchema';
import { heldKeys, pinnedOutputSlot, planPins, squash, type Pin } from './pins';
import { findTool, validateOutput } from '../../checks/validateCall';
import { ask, type Problem } from './ask';
import { emptyStepCounts } from './counts';
import { count, isTransportFailure, repaired, settle, STAGES, PRIORITY, type StageContext } from './context';
import { clipText } from './summaries';
import { isRecord } from '../../util/isRecord';
import { contradictsOwnCall, determinacyProblem, mockDeterminacy, repairDeterminacy, UNDETERMINED } from './determinacy';

/** The outcome of the mock stage for one scenario. */
export interface MockOutcome {
  result: MockResult;
  /** Who wrote the outputs. */
  source: 'llm' | 'offline';
  version: string;
  /** How the outputs came to supply every value a later call uses. */
  integrity: MockIntegrity;
  /** How the outputs came to pin down every value a later call takes from them (`./determinacy.ts`). */
  determinacy: MockIntegrity;
  /** Whether the expected response quotes a value of the outputs (false: kept after a re-ask, and labelled). */
  responseGrounded: boolean;
}

/**
 * How a record's outputs came to be consistent: the model's first valid reply already was, a
 * re-ask made it so, or the code planted the missing values into the outputs (never gluing two
 * values into one field). Records with values still unsupplied are not kept.
 */
export type MockIntegrity = 'consistent' | 're-asked' | 'repaired';

const MAX_REFERENCE_CHARS = 3000;
/** Determinacy findings quoted in one re-ask (the rest are counted in one line): a long list drowns the fix. */
const MAX_DETERMINACY_PROBLEMS = 8;

/** The key of call `i`'s output in the reply. */
export const outputKey = (i: number): string => `call_${i}`;

/**
 * Stage 3's reply schema: one output per call, keyed by its position (`call_0` …, all required,
 * nothing else), each in its tool's output shape with the call's pins fixed (`./pins.ts`); the
 * code has each call's name and arguments and attaches them, so the model never echoes them.
 */
export function mockReplySchema(
  tools: readonly (Tool | undefined)[],
  pins: readonly (readonly Pin[])[] = [],
): { jsonSchema: Record<string, unknown>; decoders: ArgumentSchema['decode'][]; placed: Pin[][] } {
  const parts = tools.map((t, i) => pinnedOutputSlot(t, pins[i] ?? []));
  const keys = tools.map((_, i) => outputKey(i));
  return {
    jsonSchema: {
      type: 'object',
      properties: {
        outputs: {
          type: 'object',
          description: "The tool's response to each workflow call, by the call's position.",
          properties: Object.fromEntries(keys.map((k, i) => [k, parts[i]!.schema])),
          required: keys,
          additionalProperties: false,
        },
        expected_response: responseSchema(parts.flatMap((p) => p.placed)),
      },
      required: ['outputs', 'expected_response'],
      additionalProperties: false,
    },
    decoders: parts.map((p) => p.decode),
    placed: parts.map((p) => p.placed),
  };
}

/** A value worth quoting in an answer: short enough to read, long enough to tell, not a bare literal. */
const isQuotable = (v: string | number): boolean => {
  const t = String(v);
  return t.length >= 3 && t.length <= 80 && !/^(true|false|null)$/.test(t);
};

/**
 * The expected response's reply schema: plain text, or, when the outputs hold pinned values, the
 * text before and after one of them (a one-of enum the model picks from), so the answer quotes
 * the outputs by construction instead of by re-ask.
 */
function responseSchema(placed: readonly Pin[]): Record<string, unknown> {
  const description = MockResult.shape.expected_response.description;
  const values = [...new Set(placed.map((p) => String(p.value)).filter(isQuotable))];
  if (!values.length) return { type: 'string', description };
  return {
    type: 'object',
    description: `${description} Written as the text before one value of the outputs that it reports, that value, and the text after it.`,
    properties: {
      before: { type: 'string', description: 'The answer up to the value it reports.' },
      value: { type: 'string', enum: values },
      after: { type: 'string', description: 'The rest of the answer after the value.' },
    },
    required: ['before', 'value', 'after'],
    additionalProperties: false,
  };
}

/** The expected response as text: segments joined with the spacing prose needs. */
export function responseText(reply: LlmMockOutputs['expected_response']): string {
  if (typeof reply === 'string') return reply;
  const before = reply.before.trimEnd();
  const after = reply.after.trimStart();
  const gapAfter = after === '' || /^[.,;:!?)\]]/.test(after) ? '' : ' ';
  return `${before}${before ? ' ' : ''}${reply.value}${gapAfter}${after}`;
}

/** Grounding of a tool's outputs and the reference text shown for it. */
export function groundingOf(ctx: StageContext, tool: Tool | undefined): { grounding: Grounding; reference: string } {
  if (!tool) return { grounding: 'low', reference: 'No reference.' };
  const own = ctx.examples.get(tool.name);
  if (own?.length)
    return {
      grounding: 'high',
      reference: `Example outputs of this tool:\n\`\`\`json\n${clipText(JSON.stringify(own.slice(0, 3), null, 1), MAX_REFERENCE_CHARS)}\n\`\`\``,
    };
  // Table 9: only examples set the tier; a schema is shown as reference but stays low (the record notes it in outputSchema).
  if (tool.outputSchema !== undefined && tool.outputSchema !== null) {
    return {
      grounding: 'low',
      reference: `Output schema of this tool (outputs must validate against it):\n\`\`\`json\n${clipText(JSON.stringify(tool.outputSchema), MAX_REFERENCE_CHARS)}\n\`\`\``,
    };
  }
  const analysis = analysisOf(ctx.spec);
  const head = analysis.byName.get(tool.name)?.head;
  if (head) {
    for (const other of analysis.tools) {
      if (other.name === tool.name || other.head !== head) continue;
      const ex = ctx.examples.get(other.name);
      if (ex?.length)
        return {
          grounding: 'medium',
          reference: `No example for this tool. The similar tool ${other.name} returned:\n\`\`\`json\n${clipText(JSON.stringify(ex[0]), MAX_REFERENCE_CHARS)}\n\`\`\``,
        };
      if (other.tool.outputSchema !== undefined && other.tool.outputSchema !== null) {
        return {
          grounding: 'low',
          reference: `No example for this tool. The similar tool ${other.name} declares this output schema:\n\`\`\`json\n${clipText(JSON.stringify(other.tool.outputSchema), MAX_REFERENCE_CHARS)}\n\`\`\``,
        };
      }
    }
  }
  return { grounding: 'low', reference: `No reference. Infer a believable response from the description: ${clipText(tool.description ?? '(none)', 300)}` };
}

/** Values (not field names) of an output, as text. */
function valueLeaves(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string' || typeof value === 'number') out.push(String(value));
  else if (Array.isArray(value)) for (const v of value) valueLeaves(v, out);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) valueLeaves(v, out);
  return out;
}

/** Strings and numbers of the outputs worth quoting (for the expected-response check); field names are not values. */
function quotable(outputs: readonly unknown[]): string[] {
  const leaves = outputs.flatMap((o) => valueLeaves(o));
  return [...new Set(leaves.filter(isQuotable))];
}

/** Whether an answer quotes a value of the outputs (or they hold none worth quoting). */
function quotesOutputs(outputs: readonly unknown[], response: string): boolean {
  const quotes = quotable(outputs);
  return !quotes.length || quotes.some((q) => containsToken(response, q));
}

/**
 * Deterministic integrity repair: plants each missing value into an earlier output, never so that
 * the output contradicts its own call (determinacy's `output-contradicts-call`).
 */
export function plantMissing(ctx: Pick<StageContext, 'spec'>, scenario: Scenario, outputs: unknown[], violations: readonly IntegrityViolation[]): unknown[] {
  const calls = scenario.agent_workflow;
  const analysis = analysisOf(ctx.spec);
  const sources = chainSources(analysis, calls);
  const next = [...outputs];
  const kept = new Set<string>();
  for (const v of violations) {
    const keys = heldKeys(v.param);
    const order: number[] = [];
    const src = sources[v.callIndex]?.get(v.param.split('.')[0] ?? v.param);
    if (src !== undefined) order.push(src);
    for (let i = v.callIndex - 1; i >= 0; i--) if (i !== src) order.push(i);
    for (const i of order) {
      const tool = findTool(ctx.spec, calls[i]?.name ?? '');
      const contradictedBefore = contradictsOwnCall(ctx.spec, scenario, next, i);
      // Valid against the outputSchema, and not contradicting its own call: "index" planted into
      // create_index(index=a)'s output for the next call's index b would say the create made b.
      const valid = (o: unknown): boolean => {
        if (tool && validateOutput(tool, o)?.ok === false) return false;
        const trial = [...next];
        trial[i] = o;
        return !contradictsOwnCall(ctx.spec, scenario, trial, i) || contradictedBefore;
      };
      // A key named like one of this call's own arguments goes last: it is the one field that must echo the call.
      const own = new Set(Object.keys(isRecord(calls[i]?.arguments) ? calls[i].arguments : {}).map(squash));
      const ordered = [...keys.filter((k) => !own.has(squash(k))), ...keys.filter((k) => own.has(squash(k)))];
      // A first key already taken (by a value planted for another call) hands over to the next one.
      let planted: unknown;
      for (let k = 0; k < ordered.length && planted === undefined; k++) {
        planted = plantValue(next[i] ?? {}, [...ordered.slice(k), ...ordered.slice(0, k)], v.value, valid, kept, true);
      }
      if (planted !== undefined) {
        next[i] = planted;
        kept.add(String(v.value));
        break;
      }
    }
  }
  return next;
}

/**
 * Runs stage 3 for one scenario: the model's outputs, or the offline generator's after invalid
 * replies; undefined when the request failed in transport.
 */
export async function mockScenario(ctx: StageContext, scenario: Scenario): Promise<MockOutcome | undefined> {
  const calls = scenario.agent_workflow;
  const tools = calls.map((c) => findTool(ctx.spec, c.name));
  const grounding = tools.map((t) => groundingOf(ctx, t));
  const references = [
    ...new Map(calls.map((c, i) => [c.name, `### ${c.name} — grounding: ${grounding[i]!.grounding}\n${grounding[i]!.reference}`])).values(),
  ].join('\n\n');
  const plan = planPins(ctx.spec, scenario);
  const reqs = plan.reqs;
  const reply = mockReplySchema(tools, plan.pins);
  const state = reqs.length
    ? reqs
        .map((r, k) => {
          const at = plan.holder[k];
          const where =
            at === undefined
              ? `one of the outputs of calls 0–${r.consumer - 1}`
              : `the output of call ${at} (${calls[at]?.name}) (the reply schema already fixes it in a field of that output)`;
          return `- ${JSON.stringify(r.value)} must appear in ${where}: call ${r.consumer} (${calls[r.consumer]?.name}) uses it as "${r.param}".`;
        })
        .join('\n')
    : '- Nothing: no call needs a value that only an earlier output could supply.';
  const workflow = calls.map((c, index) => ({ index, name: c.name, arguments: c.arguments, explanation: c.explanation }));
  const rendered = ctx.prompts.render('mock', {
    prompt: scenario.prompt,
    novelty_reason: scenario.novelty_reason,
    call_count: calls.length,
    workflow_json: JSON.stringify(workflow, null, 2),
    references,
    state,
  });

  type Parsed = { outputs: unknown[]; response: string; problems: Problem[] };
  const parse = (value: LlmMockOutputs): Parsed => {
    const problems: Problem[] = [];
    const outputs = calls.map((call, i) => {
      const at = `outputs.${outputKey(i)}`;
      if (!(outputKey(i) in value.outputs)) {
        problems.push({ category: 'output-missing', message: `${at} (${call.name}) is missing: give one output per call.` });
        return undefined;
      }
      const output = reply.decoders[i]!(value.outputs[outputKey(i)]);
      const tool = tools[i];
      const v = tool ? validateOutput(tool, output) : undefined;
      if (v && !v.ok)
        for (const e of v.errors.slice(0, 5))
          problems.push({ category: 'output-schema', message: `${at} (${call.name}) does not match the tool's output schema: ${e}` });
      return output;
    });
    const response = responseText(value.expected_response);
    if (problems.length) return { outputs, response, problems };
    for (const v of checkIntegrity({ calls, outputs, prompt: scenario.prompt, spec: ctx.spec })) {
      // Where the reply schema fixed the value (the prompt names the same output), else its producer.
      const k = reqs.findIndex((r) => r.consumer === v.callIndex && String(r.value) === String(v.value));
      const at = k < 0 ? undefined : (plan.holder[k] ?? reqs[k]!.producer);
      const where = at !== undefined ? `outputs.${outputKey(at)} (${calls[at]?.name})` : `an earlier output`;
      problems.push({
        category: 'integrity',
        message: `Call ${v.callIndex} (${calls[v.callIndex]?.name}) uses ${JSON.stringify(v.value)} as "${v.param}", but neither the user's request nor any earlier output contains it: include it in ${where}.`,
      });
    }
    // Determinacy (issue 20): a value the user's words do not pick out, or an output that contradicts its call.
    const undetermined = mockDeterminacy(ctx.spec, scenario, outputs);
    for (const f of undetermined.slice(0, MAX_DETERMINACY_PROBLEMS)) problems.push(determinacyProblem(scenario, f, outputKey));
    if (undetermined.length > MAX_DETERMINACY_PROBLEMS)
      problems.push({ category: UNDETERMINED, message: `…and ${undetermined.length - MAX_DETERMINACY_PROBLEMS} more values of the same kinds.` });
    if (!quotesOutputs(outputs, response)) {
      const quotes = quotable(outputs);
      problems.push({
        category: 'response-not-grounded',
        message: `expected_response quotes nothing from the outputs: cite concrete values such as ${quotes
          .slice(0, 3)
          .map((q) => JSON.stringify(q))
          .join(', ')}.`,
      });
    }
    return { outputs, response, problems };
  };
  const build = (outputs: readonly unknown[], response: string): MockResult => ({
    mock_workflow: calls.map((c, i): MockCall => ({
      name: c.name,
      arguments: c.arguments,
      explanation: c.explanation,
      output: outputs[i] ?? null,
      grounding: grounding[i]!.grounding,
    })),
    expected_response: response,
  });

  type Made = { result: MockResult; integrity: MockIntegrity; determinacy: MockIntegrity };
  const outcome = await ask<LlmMockOutputs, Made>(ctx, {
    stage: STAGES.mock,
    request: {
      priority: PRIORITY.mock,
      stage: STAGES.mock,
      promptVersion: rendered.version,
      prompt: rendered.text,
      schema: LlmMockOutputs,
      jsonSchema: reply.jsonSchema,
      cacheInputs: { calls: calls.length },
    },
    check: (value) => parse(value).problems,
    accept: (value) => {
      const p = parse(value);
      const integrity: MockIntegrity = 'consistent';
      return { result: build(p.outputs, p.response), integrity, determinacy: integrity };
    },
    salvage: (value, problems) => {
      // Only consistency problems can be fixed here; an output that breaks its schema cannot.
      if (problems.some((p) => p.category !== 'integrity' && p.category !== 'response-not-grounded' && p.category !== UNDETERMINED)) return undefined;
      const p = parse(value);
      let outputs = p.outputs;
      const counts = emptyStepCounts();
      let integrity: MockIntegrity = 'consistent';
      let determinacy: MockIntegrity = 'consistent';
      const violations = checkIntegrity({ calls, outputs, prompt: scenario.prompt, spec: ctx.spec });
      if (violations.length) {
        outputs = plantMissing(ctx, scenario, outputs, violations);
        if (checkIntegrity({ calls, outputs, prompt: scenario.prompt, spec: ctx.spec }).length) return undefined;
        counts.repaired[`${STAGES.mock}:integrity-planted`] = 1;
        integrity = 'repaired';
      }
      // After planting (a planted value can land in one item of a list): cut lists to the item a
      // later call uses, set an output's field to its call's value; what stays is discarded as
      // `mock:undetermined`, also when only the planting made it.
      if (mockDeterminacy(ctx.spec, scenario, outputs).length) {
        const fixed = repairDeterminacy(ctx.spec, scenario, outputs);
        if (!fixed) return { discard: UNDETERMINED };
        outputs = fixed.outputs;
        for (const fix of new Set(fixed.fixes)) counts.repaired[`${STAGES.mock}:${fix}`] = 1;
        determinacy = 'repaired';
      }
      // An answer that quotes no output is kept (it is still the model's); the record says so.
      return { value: { result: build(outputs, p.response), integrity, determinacy }, counts };
    },
  });
  count(ctx, outcome.counts);
  settle(ctx, STAGES.mock, outcome, ctx.fallback === 'offline' ? 'offline' : 'discarded');
  if (outcome.ok) {
    const { result } = outcome.value;
    // A re-ask about integrity happened when the counts say an earlier reply failed that check.
    const integrity = outcome.value.integrity === 'consistent' && outcome.counts.repaired[`${STAGES.mock}:integrity`] ? 're-asked' : outcome.value.integrity;
    const determinacy =
      outcome.value.determinacy === 'consistent' && outcome.counts.repaired[`${STAGES.mock}:${UNDETERMINED}`] ? 're-asked' : outcome.value.determinacy;
    const responseGrounded = quotesOutputs(
      result.mock_workflow.map((m) => m.output),
      result.expected_response,
    );
    return { result, source: 'llm', version: rendered.version, integrity, determinacy, responseGrounded };
  }
  if (isTransportFailure(outcome.reason)) return undefined;
  if (ctx.fallback !== 'offline') return undefined;
  repaired(ctx, `${STAGES.mock}:offline-fallback`);
  return {
    result: mockOffline(ctx.spec, scenario, { seed: ctx.seed }),
    source: 'offline',
    version: rendered.version,
    integrity: 'consistent',
    determinacy: 'consistent',
    responseGrounded: true,
  };
}
