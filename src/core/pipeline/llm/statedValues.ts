/**
 * Grounding at generation (issue 21): every argument value of a model-made call is stated by the
 * user, taken from an earlier output, or offered by the parameter's own schema. Stage 2's checks
 * only hold ID-like values of later calls to that (integrity); a model that fills the argument
 * schemas and writes the request on its own (a schema-only model always does) leaves most values
 * stated nowhere, and the judge then scores a correct agent as wrong.
 *
 * So, after a scenario is accepted and before the mock stage, this step finds the values the user
 * must state ({@link valuesToState}, by `groundWorkflow` with no outputs yet, the same rule the
 * judge reads). When some are missing it makes the request hold all of them **by construction**:
 * one request asks for the user's request rewritten as segments, free text between slots, each
 * slot a one-value `enum` holding a value to state (`text_0`, `value_0`, `text_1`, …, `text_n`),
 * and the code joins the texts around its own values ({@link joinSegments}), so no reply can leave
 * a value out; a reply's slot is never read. The record says so (`provenance.statedValues`, the
 * template's version under `promptVersions.restate`) and the run counts it
 * (`scenarios:values-stated`).
 *
 * ## Which values
 * Every string and number leaf of every call's arguments, in all classes: ids, paths, names,
 * dates and amounts (grounding's findings), and also settings (page sizes), free text (messages,
 * queries) and one-word tokens (modes). The last three are not findings, since an agent may choose
 * them, but they count against the exact judge's grounding rate, and a test whose reference says
 * `per_page: 37` scores an agent that picked 20 as wrong; stating them costs the request a few
 * words. Not stated: values the parameter's schema offers (`enum`, `const`, `default`), and the
 * ID-like values of later calls that an earlier output will supply: the mock stage's rule
 * (`stateRequirements` in `pins.ts`, `idLikeValues` not in the request, calls after the first),
 * when an earlier output's reply slot can hold them (`planPins`; a closed `outputSchema` with no
 * field for the value cannot, so the user states it). Values already stated are slots too: the
 * rewrite replaces the request, and must keep them.
 *
 * A number that counts or measures (`setting`, `amount`) gets one slot per call that uses it: the
 * determinacy rule (`reused-statement`) holds a number the user said once to one call.
 *
 * ## Failures
 * A request lost in transport loses the scenario as a failed item (`settle`, as the mock stage
 * does; a re-run asks again); a reply that is never valid JSON discards it, counted. Scenarios the
 * offline generator wrote are not sent (a last resort does not wait on the model).
 */
import { groundWorkflow, type ValueClass } from '../../checks/grounding';
import { LlmPromptSegments, type Scenario } from '../schemas';
import { ask } from './ask';
import { count, settle, STAGES, PRIORITY, type StageContext } from './context';
import { planPins, type StateRequirement } from './pins';

/** One value the user's request must state, with the calls that use it. */
export interface ValueToState {
  value: string | number;
  class: ValueClass;
  /** The calls and argument paths that use it, in workflow order. */
  uses: { callIndex: number; param: string }[];
  /** Whether the request as written states it (grounding finds it in the user's words). */
  stated: boolean;
}

/** Counter of a restated request (a repair: the code wrote the values into the model's request). */
export const VALUES_STATED = 'values-stated';

/** Most slots in one rewrite: the schema stays far inside the providers' limits on properties and enum values. */
export const MAX_STATED_VALUES = 200;

/**
 * The values a scenario's request must state (see the module doc), in the order of their first
 * use; `requirements` are the mock stage's (`planPins`, with `producer` the output that holds each, if any).
 */
export function valuesToState(
  scenario: Scenario,
  spec: Parameters<typeof groundWorkflow>[0]['spec'],
  requirements: readonly StateRequirement[],
): ValueToState[] {
  const calls = scenario.agent_workflow;
  const grounding = groundWorkflow({
    calls,
    outputs: calls.map(() => undefined),
    turns: [{ prompt: scenario.prompt, calls: calls.map((_, i) => i) }],
    spec,
  });
  const suppliedLater = new Set(requirements.filter((r) => r.producer !== undefined).map((r) => `${r.consumer}|${r.param}`));
  const byKey = new Map<string, ValueToState>();
  for (const g of grounding) {
    if (g.source.kind === 'schema' || g.source.kind === 'output') continue;
    if (suppliedLater.has(`${g.callIndex}|${g.param}`)) continue;
    const perUse = typeof g.value === 'number' && (g.class === 'setting' || g.class === 'amount');
    const key = `${typeof g.value}|${String(g.value)}${perUse ? `|${g.callIndex}|${g.param}` : ''}`;
    const known = byKey.get(key);
    if (known) {
      known.uses.push({ callIndex: g.callIndex, param: g.param });
      known.stated &&= g.source.kind === 'user';
    } else byKey.set(key, { value: g.value, class: g.class, uses: [{ callIndex: g.callIndex, param: g.param }], stated: g.source.kind === 'user' });
  }
  return [...byKey.values()];
}

/** The reply schema of a rewrite: `text_0`, `value_0`, …, `text_n`, every slot a one-value enum (within `schemaRules.ts`). */
export function segmentSchema(values: readonly ValueToState[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const text = (i: number): Record<string, unknown> => ({
    type: 'string',
    description:
      i === 0
        ? 'The start of the request, up to the first value (may be empty). Never a value itself.'
        : i === values.length
          ? 'The end of the request after the last value (may be empty). Never a value itself.'
          : `The words between value_${i - 1} and value_${i} (may be empty). Never a value itself.`,
  });
  values.forEach((v, i) => {
    properties[`text_${i}`] = text(i);
    properties[`value_${i}`] = {
      type: typeof v.value === 'number' ? 'number' : 'string',
      enum: [v.value],
      description: `Fixed; the code writes it between text_${i} and text_${i + 1}.`,
    };
  });
  properties[`text_${values.length}`] = text(values.length);
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

/** Characters a value may touch without a space between: white space, and quotes and brackets that open (before) or close (after). */
const OPENS = /[\s"'“‘([{<]$/;
const CLOSES = /^(?:[\s"'”’)\]}>,;!?]|[.:](?![A-Za-z0-9]))/;

/**
 * The request made of the texts and the values between them: `texts[0] values[0] texts[1] …`.
 * A space goes between a value and a text that would otherwise run into it (`channel:C1`,
 * `25items`), so each value stands on its own as grounding's matching reads it.
 */
export function joinSegments(texts: readonly string[], values: readonly (string | number)[]): string {
  let out = texts[0] ?? '';
  values.forEach((v, i) => {
    const value = String(v);
    if (out !== '' && !OPENS.test(out)) out += ' ';
    out += value;
    const next = texts[i + 1] ?? '';
    if (next !== '' && !CLOSES.test(next)) out += ' ';
    out += next;
  });
  return out.replace(/[ \t]{2,}/g, ' ').trim();
}

/** A value as the prompt lists it, with what uses it. */
function describeValue(v: ValueToState, i: number, scenario: Scenario): string {
  const uses = v.uses.map((u) => `"${u.param}" of call ${u.callIndex} (${scenario.agent_workflow[u.callIndex]?.name})`).join(', ');
  return `- value_${i}: ${JSON.stringify(v.value)}, used as ${uses}${v.stated ? ' (the request already says it)' : ''}`;
}

/** What {@link stateValues} made of a scenario. */
export type StatedScenario = { scenario: Scenario; restated: false } | { scenario: Scenario; restated: true; values: number; version: string };

/**
 * The scenario with every value its calls need stated in its request (see the module doc): as it
 * was when nothing is missing, else with its request rewritten by the model around the code's
 * values; undefined when the rewrite was lost, in transport (a failed item) or to replies that were
 * never valid (a discarded item).
 */
export async function stateValues(ctx: StageContext, scenario: Scenario): Promise<StatedScenario | undefined> {
  // A value some earlier output's reply slot will hold (`pins.ts`) comes from that output; the rest the user states.
  const plan = planPins(ctx.spec, scenario);
  const values = valuesToState(
    scenario,
    ctx.spec,
    plan.reqs.map((r, k) => ({ ...r, producer: plan.holder[k] })),
  );
  const missing = values.filter((v) => !v.stated).length;
  if (missing === 0 || values.length > MAX_STATED_VALUES) return { scenario, restated: false };
  const calls = scenario.agent_workflow;
  const rendered = ctx.prompts.render('restate-prompt', {
    prompt: scenario.prompt,
    workflow_json: JSON.stringify(
      calls.map((c, index) => ({ index, name: c.name, arguments: c.arguments })),
      null,
      2,
    ),
    value_count: values.length,
    values: values.map((v, i) => describeValue(v, i, scenario)).join('\n'),
  });
  const join = (reply: LlmPromptSegments): string =>
    joinSegments(
      Array.from({ length: values.length + 1 }, (_, i) => {
        const t = reply[`text_${i}`];
        // A slot the reply left out or filled with a number reads as what it holds; the values are the code's.
        return typeof t === 'string' ? t : t === undefined ? '' : String(t);
      }),
      values.map((v) => v.value),
    );
  const outcome = await ask(ctx, {
    stage: STAGES.scenarios,
    request: {
      priority: PRIORITY.restate,
      stage: STAGES.scenarios,
      promptVersion: rendered.version,
      prompt: rendered.text,
      schema: LlmPromptSegments,
      jsonSchema: segmentSchema(values),
      cacheInputs: { restate: values.length },
    },
    // Nothing to re-ask: the values are the code's, and any text around them is the model's to choose.
    check: () => [],
    accept: join,
    repairs: () => [VALUES_STATED],
  });
  count(ctx, outcome.counts);
  settle(ctx, STAGES.scenarios, outcome, 'discarded');
  if (!outcome.ok) return undefined;
  return { scenario: { ...scenario, prompt: outcome.value }, restated: true, values: missing, version: rendered.version };
}
