/**
 * Stage 4 with a model: a multi-call scenario split into conversation turns, in
 * mock-data-grounded mode (the outputs are shown and later turns react to them) or standard
 * mode (no outputs shown).
 *
 * The model names turn boundaries, not turn membership: each turn gives the index of its last
 * call (an enum of the workflow's call numbers), and a turn holds the calls after the previous
 * turn's end up to its own. A split is therefore contiguous and in workflow order whatever the
 * reply, using only the workflow's own calls with their own arguments; asking for membership let
 * a reply interleave turns (a later turn holding an earlier call), which no rule could repair.
 * The model decides how many turns. What the schema cannot rule out has one right answer and is
 * fixed and counted (`splitAtTurnEnds`): a turn that does not end after the one before it is
 * dropped, and the last turn is extended to the workflow's last call. So is a value the request
 * states (any class: an ID, a name, a number, a text) that the turns' messages no longer give the
 * call that uses it: it is added to the message of that call's turn (`restateLost`,
 * `turns:values-restated`), so the conversation view grounds every value the single-turn view
 * does (issue 21). The checks that remain (re-asked with exact messages): no empty prompts, no
 * value a call needs that neither an earlier output nor the prompts up to its turn contain
 * (after the repair, a guard), and no value the turns' messages leave undetermined that the
 * request determined (`checks/determinacy.ts`: a later turn must pick a listed item as the
 * request does, and not reuse a number given for another call). A reply with a single turn is not re-asked: as in the paper, it
 * means the scenario had no natural split, and the scenario stays single-turn (counted
 * `turns:single-turn`).
 */
import type { ConversationTurn } from '../../harness/format';
import { checkDeterminacy } from '../../checks/determinacy';
import { groundWorkflow } from '../../checks/grounding';
import { checkIntegrity } from '../../checks/integrity';
import { LlmTurnEnds, type MockResult, type Scenario, type Turn } from '../schemas';
import { checkTurns } from '../../checks/turns';
import { ask, type Problem } from './ask';
import { count, discarded, settle, STAGES, PRIORITY, type StageContext } from './context';

/** The paper's expansion rate: multi-turn records over the multi-call scenarios stage 4 may split (shown beside a run's own). */
export const PAPER_MULTI_TURN_RATE = 0.16;

/** Problem category of a value the request states that a split's messages no longer give its call. */
export const VALUE_LOST = 'value-lost';
/** Repair: the lost values added to the message of their call's turn. */
export const VALUES_RESTATED = 'values-restated';

/**
 * The turns with each lost value added to the message of the turn of the call that uses it
 * (`… (channel: C123, limit: 25)`), once per call and argument: the smallest change that gives
 * the call back what the request said.
 */
export function restateLost(
  turns: readonly Turn[],
  lost: readonly { callIndex: number; param: string; value: string | number }[],
  violations: readonly { callIndex: number; param: string; value: string | number }[] = [],
): Turn[] {
  const byTurn = new Map<number, string[]>();
  const seen = new Set<string>();
  for (const v of [...lost, ...violations]) {
    const key = `${v.callIndex}|${v.param}`;
    const k = turns.findIndex((t) => t.calls.includes(v.callIndex));
    if (k < 0 || seen.has(key)) continue;
    seen.add(key);
    const leaf =
      v.param
        .split('.')
        .filter((x) => !/^\d+$/.test(x))
        .pop() ?? v.param;
    byTurn.set(k, [...(byTurn.get(k) ?? []), `${leaf}: ${String(v.value)}`]);
  }
  return turns.map((t, k) => {
    const add = byTurn.get(k);
    return add ? { ...t, calls: [...t.calls], prompt: `${t.prompt.trimEnd()} (${add.join('; ')})` } : { ...t, calls: [...t.calls] };
  });
}

/** How a split is asked for. */
export type TurnsMode = 'grounded' | 'standard';

/** The outcome of stage 4 for one scenario. */
export interface TurnsOutcome {
  /** The accepted turns (two or more), or undefined when the split was single-turn or discarded. */
  turns: ConversationTurn[] | undefined;
  version: string;
}

const MAX_OUTPUT_CHARS = 1500;

/**
 * Stage 4's reply schema for `calls` calls: one to `calls` turns in order, each ending with a call
 * named by index from the enum of the workflow's call numbers.
 */
export function turnSplitSchema(calls: number): Record<string, unknown> {
  const turn = LlmTurnEnds.shape.turns.element.shape;
  return {
    type: 'object',
    properties: {
      turns: {
        type: 'array',
        minItems: 1,
        maxItems: calls,
        description: `The conversation turns in order. Each turn ends with a later call than the turn before it, and the last turn ends with call ${calls - 1}.`,
        items: {
          type: 'object',
          properties: {
            prompt: { type: 'string', description: turn.prompt.description },
            last_call: { type: 'integer', enum: Array.from({ length: calls }, (_, i) => i), description: turn.last_call.description },
            followup: { type: 'string', description: turn.followup.description },
          },
          required: ['prompt', 'last_call', 'followup'],
          additionalProperties: false,
        },
      },
    },
    required: ['turns'],
    additionalProperties: false,
  };
}

/** A reply made into a split, and what the code fixed on the way. */
interface Normalised {
  turns: Turn[];
  /** Repair reasons, one entry per fix. */
  fixes: string[];
}

/**
 * Makes a reply into contiguous turns: each turn holds the calls after the previous kept turn's
 * end up to its own `last_call`. A turn whose end is not after the previous kept turn's (or is
 * no call of the workflow) is dropped with its prompt, as the calls it would name already have a
 * turn; the last kept turn also takes the calls after its end. No turn is left only when no end
 * names a workflow call, which a reply within the schema cannot do.
 */
export function splitAtTurnEnds(reply: LlmTurnEnds, calls: number): Normalised {
  const fixes: string[] = [];
  const turns: Turn[] = [];
  let end = -1;
  for (const t of reply.turns) {
    if (!Number.isInteger(t.last_call) || t.last_call < 0 || t.last_call >= calls) {
      fixes.push('turn-end-out-of-range-dropped');
      continue;
    }
    if (t.last_call <= end) {
      fixes.push('turn-end-not-after-previous-dropped');
      continue;
    }
    turns.push({ prompt: t.prompt, calls: range(end + 1, t.last_call), followup: t.followup });
    end = t.last_call;
  }
  const last = turns[turns.length - 1];
  if (last && end < calls - 1) {
    last.calls.push(...range(end + 1, calls - 1));
    fixes.push('last-turn-extended');
  }
  return { turns, fixes };
}

/** The integers from `from` to `to`, both included. */
function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
}

/** An output as shown in the prompt: as is when small, else its text clipped. */
function shownOutput(output: unknown): unknown {
  const text = JSON.stringify(output) ?? 'null';
  return text.length <= MAX_OUTPUT_CHARS ? output : { truncated: `${text.slice(0, MAX_OUTPUT_CHARS)}…` };
}

/** Splits one scenario (with at least two calls) into turns. */
export async function expandTurns(ctx: StageContext, scenario: Scenario, mock: MockResult, mode: TurnsMode): Promise<TurnsOutcome> {
  const calls = scenario.agent_workflow;
  const outputs = calls.map((_, i) => mock.mock_workflow[i]?.output);
  const workflow = calls.map((c, index) => ({
    index,
    name: c.name,
    arguments: c.arguments,
    explanation: c.explanation,
    ...(mode === 'grounded' ? { output: shownOutput(outputs[index]) } : {}),
  }));
  const template = mode === 'grounded' ? 'turns-grounded' : 'turns-standard';
  const rendered = ctx.prompts.render(template, {
    prompt: scenario.prompt,
    call_count: calls.length,
    last_index: calls.length - 1,
    workflow_json: JSON.stringify(workflow, null, 2),
  });
  // Values the single-turn record already lacks are the mock stage's problem, not the split's.
  const before = new Set(checkIntegrity({ calls, outputs, prompt: scenario.prompt, spec: ctx.spec }).map((v) => `${v.callIndex}|${v.param}`));
  // Values the request states (or an earlier output holds) must stay where the call can see them: a
  // split that moves one to a later turn, or drops it, hides it from the call (issue 21).
  const single = [{ prompt: scenario.prompt, calls: calls.map((_, i) => i) }];
  const groundedBefore = new Set(
    groundWorkflow({ calls, outputs, turns: single, spec: ctx.spec })
      .filter((g) => g.source.kind !== 'none')
      .map((g) => `${g.callIndex}|${g.param}`),
  );
  const lostValues = (turns: readonly Turn[]) =>
    groundWorkflow({ calls, outputs, turns: turns.map((t) => ({ prompt: t.prompt, calls: t.calls })), spec: ctx.spec }).filter(
      (g) => g.source.kind === 'none' && groundedBefore.has(`${g.callIndex}|${g.param}`),
    );
  const determinedBefore = new Set(
    checkDeterminacy({ calls, outputs, turns: [{ prompt: scenario.prompt, calls: calls.map((_, i) => i) }], spec: ctx.spec }).findings.map(
      (f) => `${f.callIndex}|${f.param}|${f.kind}`,
    ),
  );

  // A value the request states that a split's messages lost has one right place: the message of
  // its call's turn. It is added there (`turns:values-restated`), as the schema cannot ask for it;
  // a re-ask would only trade the split for another one (the schema-only adversary then mostly
  // answers with one turn, and the conversation is lost).
  const normalise = (raw: LlmTurnEnds): Normalised => {
    const split = splitAtTurnEnds(raw, calls.length);
    if (split.turns.length < 2) return split;
    const lost = lostValues(split.turns);
    const hidden = checkIntegrity({ calls, outputs, prompt: scenario.prompt, turns: split.turns, spec: ctx.spec }).filter(
      (v) => !before.has(`${v.callIndex}|${v.param}`),
    );
    if (!lost.length && !hidden.length) return split;
    return { turns: restateLost(split.turns, lost, hidden), fixes: [...split.fixes, VALUES_RESTATED] };
  };
  const check = (raw: LlmTurnEnds): Problem[] => checkSplit(normalise(raw).turns);
  const checkSplit = (turns: readonly Turn[]): Problem[] => {
    const split = { turns };
    if (split.turns.length === 0) return [{ category: 'structure', message: `no turn ends with a call of the workflow (0–${calls.length - 1})` }];
    if (split.turns.length === 1) return [];
    const problems: Problem[] = [];
    for (const p of checkTurns(split.turns, calls, ctx.spec).problems) problems.push({ category: 'structure', message: p.message });
    // Its own category: `structure` is what turn ends cannot express, so it stays 0 for any model that keeps to the schema.
    split.turns.forEach((t, k) => {
      if (!t.prompt.trim()) problems.push({ category: 'empty-prompt', message: `turn ${k} has an empty prompt` });
    });
    if (problems.length) return problems;
    const flagged = new Set<string>();
    for (const v of checkIntegrity({ calls, outputs, prompt: scenario.prompt, turns: split.turns, spec: ctx.spec })) {
      if (before.has(`${v.callIndex}|${v.param}`)) continue;
      const k = split.turns.findIndex((t) => t.calls.includes(v.callIndex));
      flagged.add(`${v.callIndex}|${v.param}`);
      problems.push({
        category: 'integrity',
        message: `call ${v.callIndex} (${calls[v.callIndex]?.name}) in turn ${k} uses ${JSON.stringify(v.value)} as "${v.param}", but no earlier output and no prompt of turns 0–${k} contains it: the user must say it in turn ${k} or before.`,
      });
    }
    // Every value, not only ID-like ones: names, numbers, dates and texts the request states.
    for (const g of lostValues(split.turns)) {
      if (flagged.has(`${g.callIndex}|${g.param}`)) continue;
      const k = split.turns.findIndex((t) => t.calls.includes(g.callIndex));
      problems.push({
        category: VALUE_LOST,
        message: `call ${g.callIndex} (${calls[g.callIndex]?.name}) in turn ${k} uses ${JSON.stringify(g.value)} as "${g.param}", which the request states, but no message of turns 0–${k} says it and no earlier output holds it: the employee must say it in turn ${k} or before.`,
      });
    }
    // Determinacy (issue 20): a later turn's message must pick the item a call takes from an
    // earlier listing as the request did, and never reuse a number the employee gave for another
    // call. Findings the single-prompt view already has are the earlier stages' (the final gate
    // in `llmRun.ts` sees them); a split that cannot be made fair is discarded and the record
    // stays single-turn.
    const turnsView = split.turns.map((t) => ({ prompt: t.prompt, calls: t.calls }));
    for (const f of checkDeterminacy({ calls, outputs, turns: turnsView, spec: ctx.spec }).findings) {
      if (determinedBefore.has(`${f.callIndex}|${f.param}|${f.kind}`)) continue;
      const k = split.turns.findIndex((t) => t.calls.includes(f.callIndex));
      problems.push({
        category: 'undetermined',
        message: `call ${f.callIndex} (${calls[f.callIndex]?.name}) in turn ${k}: ${f.message}. The employee's messages up to turn ${k} must say what the request says to pick it (a name, title or other field of the item), and state no number the request gives for another call.`,
      });
    }
    return problems;
  };
  const outcome = await ask(ctx, {
    stage: STAGES.turns,
    request: {
      priority: PRIORITY.turns,
      stage: STAGES.turns,
      promptVersion: rendered.version,
      prompt: rendered.text,
      schema: LlmTurnEnds,
      jsonSchema: turnSplitSchema(calls.length),
      cacheInputs: { mode },
    },
    check,
    accept: normalise,
    repairs: (raw) => normalise(raw).fixes,
  });
  count(ctx, outcome.counts);
  settle(ctx, STAGES.turns, outcome, 'discarded');
  if (!outcome.ok) return { turns: undefined, version: rendered.version };
  const turns = outcome.value.turns.map((t) => ({ prompt: t.prompt, calls: [...t.calls], followup: t.followup }));
  if (turns.length < 2) {
    discarded(ctx, `${STAGES.turns}:single-turn`);
    return { turns: undefined, version: rendered.version };
  }
  return { turns, version: rendered.version };
}
