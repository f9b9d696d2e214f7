/**
 * Stage 3 with a model: one request per scenario for every call's output and the final answer.
 *
 * ## Shared state (the review's fix for cross-call referential integrity)
 * The prompt states, for every ID-like argument of a later call that the user did not say, which
 * earlier output must contain it (the chained producer when `chainSources` finds one, else the
 * nearest earlier call whose output can hold it). The reply is then checked with the same
 * deterministic rule the harness reports (`checkIntegrity`); violations are re-asked with the
 * exact value and place. If the re-asks run out, the missing values are planted into the
 * model's outputs (`plantValue`), and only when that fails does the scenario fall back to the
 * offline mock generator. Every step is counted. A request lost in transport is not filled in:
 * the scenario gets no mock outputs (and no record), and the item counts as failed.
 *
 * ## Other checks
 * One entry per call, in order, with the call's name and unchanged arguments; outputs that
 * parse as JSON and validate against the tool's outputSchema when it declares one; and an
 * expected response that quotes at least one concrete value of the outputs.
 *
 * ## Grounding
 * Decided here, not by the model: `high` when the tool has example outputs or an outputSchema,
 * `medium` when a tool of the same entity has, `low` otherwise.
 */
import type { Grounding, IntegrityViolation } from '../../harness/format';
import { canonicalJson } from '../../harness/hash';
import type { Tool } from '../../spec/model';
import { appearsIn, checkIntegrity, containsToken, idLikeValues, nameWords, schemaLiterals, singular, textLeaves } from '../../checks/integrity';
import { mockOffline } from '../offline';
import { canHost, chainSources } from '../offline/chain';
import { plantValue } from '../offline/mock';
import { analysisOf } from '../offline/scenarios';
import { LlmMockResult, type MockCall, type MockResult, type Scenario } from '../schemas';
import { findTool, validateOutput } from '../../checks/validateCall';
import { ask, type Problem } from './ask';
import { emptyStepCounts } from './counts';
import { count, isTransportFailure, repaired, settle, STAGES, type StageContext } from './context';
import { clipText } from './summaries';

/** The outcome of the mock stage for one scenario. */
export interface MockOutcome {
  result: MockResult;
  /** Who wrote the outputs. */
  source: 'llm' | 'offline';
  version: string;
}

const MAX_REFERENCE_CHARS = 3000;

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

/** A value a later call uses that an earlier output must contain. */
export interface StateRequirement {
  /** The call that uses the value. */
  consumer: number;
  param: string;
  value: string | number;
  /** The earlier call whose output should contain it; undefined when none can hold it. */
  producer: number | undefined;
}

/** The workflow's shared state: ID-like values of later calls that the user's prompt does not supply. */
export function stateRequirements(ctx: StageContext, scenario: Scenario): StateRequirement[] {
  const analysis = analysisOf(ctx.spec);
  const calls = scenario.agent_workflow;
  const sources = chainSources(analysis, calls);
  const out: StateRequirement[] = [];
  calls.forEach((call, j) => {
    if (j === 0) return;
    const tool = findTool(ctx.spec, call.name);
    const literals = tool ? schemaLiterals(tool.inputSchema) : undefined;
    for (const { param, value } of idLikeValues(call.arguments, literals)) {
      if (appearsIn(value, [], [scenario.prompt])) continue;
      const top = param.split('.')[0] ?? param;
      let producer = sources[j]?.get(top);
      if (producer === undefined) {
        for (let i = j - 1; i >= 0; i--) {
          const info = analysis.byName.get(calls[i]?.name ?? '');
          if (!info || canHost(info)) {
            producer = i;
            break;
          }
        }
      }
      out.push({ consumer: j, param, value, producer });
    }
  });
  return out;
}

/** Strings and numbers of the outputs worth quoting (for the expected-response check). */
function quotable(outputs: readonly unknown[]): string[] {
  const leaves = outputs.flatMap((o) => textLeaves(o));
  return [...new Set(leaves.filter((l) => l.length >= 3 && l.length <= 80 && !/^(true|false|null)$/.test(l)))];
}

/** Deterministic integrity repair: plants each missing value into an earlier output. */
export function plantMissing(ctx: StageContext, scenario: Scenario, outputs: unknown[], violations: readonly IntegrityViolation[]): unknown[] {
  const calls = scenario.agent_workflow;
  const analysis = analysisOf(ctx.spec);
  const sources = chainSources(analysis, calls);
  const next = [...outputs];
  const kept = new Set<string>();
  for (const v of violations) {
    const leaf =
      v.param
        .split('.')
        .filter((x) => !/^\d+$/.test(x))
        .pop() ?? v.param;
    const words = nameWords(leaf);
    const last = singular(words[words.length - 1] ?? leaf);
    const keys = [...new Set([leaf, words.join('_') || leaf, last, 'id', 'name'])];
    const order: number[] = [];
    const src = sources[v.callIndex]?.get(v.param.split('.')[0] ?? v.param);
    if (src !== undefined) order.push(src);
    for (let i = v.callIndex - 1; i >= 0; i--) if (i !== src) order.push(i);
    for (const i of order) {
      const tool = findTool(ctx.spec, calls[i]?.name ?? '');
      const valid = (o: unknown): boolean => !tool || validateOutput(tool, o)?.ok !== false;
      const planted = plantValue(next[i] ?? {}, keys, v.value, valid, kept, true);
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
  const reqs = stateRequirements(ctx, scenario);
  const state = reqs.length
    ? reqs
        .map((r) => {
          const where =
            r.producer !== undefined ? `the output of call ${r.producer} (${calls[r.producer]?.name})` : `one of the outputs of calls 0–${r.consumer - 1}`;
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
  const parse = (value: LlmMockResult): Parsed => {
    const problems: Problem[] = [];
    const outputs: unknown[] = [];
    if (value.mock_workflow.length !== calls.length) {
      problems.push({
        category: 'call-mismatch',
        message: `mock_workflow has ${value.mock_workflow.length} entries but the workflow has ${calls.length} calls: return exactly one entry per call, in the workflow's order.`,
      });
    }
    value.mock_workflow.slice(0, calls.length).forEach((m, i) => {
      const call = calls[i]!;
      const at = `mock_workflow[${i}]`;
      if (m.name !== call.name)
        problems.push({ category: 'call-mismatch', message: `${at}.name is "${m.name}" but call ${i} of the workflow is "${call.name}".` });
      let args: unknown;
      try {
        args = JSON.parse(m.arguments_json);
      } catch {
        args = undefined;
      }
      if (canonicalJson(args) !== canonicalJson(call.arguments)) {
        problems.push({
          category: 'call-mismatch',
          message: `${at}.arguments_json must be exactly the workflow call's arguments: ${JSON.stringify(call.arguments)}.`,
        });
      }
      let output: unknown;
      try {
        output = JSON.parse(m.output_json);
      } catch (e) {
        problems.push({ category: 'output-json', message: `${at}.output_json (${call.name}) is not valid JSON: ${(e as Error).message}` });
      }
      outputs.push(output);
      const tool = tools[i];
      const v = tool && output !== undefined ? validateOutput(tool, output) : undefined;
      if (v && !v.ok)
        for (const e of v.errors.slice(0, 5))
          problems.push({ category: 'output-schema', message: `${at}.output_json (${call.name}) does not match the tool's output schema: ${e}` });
    });
    if (problems.length) return { outputs, response: value.expected_response, problems };
    for (const v of checkIntegrity({ calls, outputs, prompt: scenario.prompt, spec: ctx.spec })) {
      const req = reqs.find((r) => r.consumer === v.callIndex && String(r.value) === String(v.value));
      const where = req?.producer !== undefined ? `the output of call ${req.producer} (${calls[req.producer]?.name})` : `an earlier output`;
      problems.push({
        category: 'integrity',
        message: `Call ${v.callIndex} (${calls[v.callIndex]?.name}) uses ${JSON.stringify(v.value)} as "${v.param}", but neither the user's request nor any earlier output contains it: include it in ${where}.`,
      });
    }
    const quotes = quotable(outputs);
    if (quotes.length && !quotes.some((q) => containsToken(value.expected_response, q))) {
      problems.push({
        category: 'response-not-grounded',
        message: `expected_response quotes nothing from the outputs: cite concrete values such as ${quotes
          .slice(0, 3)
          .map((q) => JSON.stringify(q))
          .join(', ')}.`,
      });
    }
    return { outputs, response: value.expected_response, problems };
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

  const outcome = await ask(ctx, {
    stage: STAGES.mock,
    request: { stage: STAGES.mock, promptVersion: rendered.version, prompt: rendered.text, schema: LlmMockResult, cacheInputs: { calls: calls.length } },
    check: (value) => parse(value).problems,
    accept: (value) => {
      const p = parse(value);
      return build(p.outputs, p.response);
    },
    salvage: (value, problems) => {
      // Only consistency problems can be fixed here; a wrong shape or call list cannot.
      if (problems.some((p) => p.category !== 'integrity' && p.category !== 'response-not-grounded')) return undefined;
      const p = parse(value);
      let outputs = p.outputs;
      const counts = emptyStepCounts();
      const violations = checkIntegrity({ calls, outputs, prompt: scenario.prompt, spec: ctx.spec });
      if (violations.length) {
        outputs = plantMissing(ctx, scenario, outputs, violations);
        if (checkIntegrity({ calls, outputs, prompt: scenario.prompt, spec: ctx.spec }).length) return undefined;
        counts.repaired[`${STAGES.mock}:integrity-planted`] = 1;
      }
      return { value: build(outputs, p.response), counts };
    },
  });
  count(ctx, outcome.counts);
  settle(ctx, STAGES.mock, outcome, 'offline');
  if (outcome.ok) return { result: outcome.value, source: 'llm', version: rendered.version };
  if (isTransportFailure(outcome.reason)) return undefined;
  repaired(ctx, `${STAGES.mock}:offline-fallback`);
  return { result: mockOffline(ctx.spec, scenario, { seed: ctx.seed }), source: 'offline', version: rendered.version };
}
