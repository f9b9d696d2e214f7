/**
 * Stage 4 with a model: a multi-call scenario split into conversation turns, in
 * mock-data-grounded mode (the outputs are shown and later turns react to them) or standard
 * mode (no outputs shown).
 *
 * Turns refer to workflow calls by index (an enum of the call numbers in the reply schema), so a
 * split can only reuse the workflow's own calls with their own arguments. The model decides how
 * many turns. What has one right answer is fixed and counted (`normaliseSplit`: duplicates,
 * unplaced calls, order within a turn, empty turns); the checks that remain (re-asked with exact
 * messages): turns in workflow order, no empty prompts, and no value a call needs that neither an
 * earlier output nor the prompts up to its turn contain (a split must not hide an ID the original
 * request stated). A reply with a single turn is not re-asked: as in the paper, it means the
 * scenario had no natural split, and the scenario stays single-turn (counted `turns:single-turn`).
 */
import type { ConversationTurn } from '../../harness/format';
import { checkIntegrity } from '../../checks/integrity';
import { TurnSplit, type MockResult, type Scenario } from '../schemas';
import { checkTurns } from '../../checks/turns';
import { ask, type Problem } from './ask';
import { count, discarded, settle, STAGES, type StageContext } from './context';

/** The paper's expansion rate: multi-turn records over the multi-call scenarios stage 4 may split (shown beside a run's own). */
export const PAPER_MULTI_TURN_RATE = 0.16;

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
 * Stage 4's reply schema for `calls` calls: one to `calls` turns, each naming its calls by index
 * from the enum of the workflow's call numbers.
 */
export function turnSplitSchema(calls: number): Record<string, unknown> {
  const index = { type: 'integer', enum: Array.from({ length: calls }, (_, i) => i) };
  return {
    type: 'object',
    properties: {
      turns: {
        type: 'array',
        minItems: 1,
        maxItems: calls,
        description: 'The conversation turns in order; every workflow call appears in exactly one turn.',
        items: {
          type: 'object',
          properties: {
            prompt: { type: 'string', description: TurnSplit.shape.turns.element.shape.prompt.description },
            calls: {
              type: 'array',
              minItems: 1,
              maxItems: calls,
              items: index,
              description: 'The indices of the calls the agent makes in this turn, in order.',
            },
            followup: { type: 'string', description: TurnSplit.shape.turns.element.shape.followup.description },
          },
          required: ['prompt', 'calls', 'followup'],
          additionalProperties: false,
        },
      },
    },
    required: ['turns'],
    additionalProperties: false,
  };
}

/** What the code fixed in a split before checking it. */
interface Normalised {
  turns: TurnSplit['turns'];
  /** Repair reasons, one entry per fix. */
  fixes: string[];
}

/**
 * Fixes what has one right answer: a call listed twice keeps its first place, a call listed in no
 * turn joins the turn of the call before it (the first turn for call 0), calls within a turn are
 * put in workflow order, and a turn left without calls is dropped. Interleaved turns (a later
 * turn holding an earlier call) have no such answer and are left for the checks.
 */
export function normaliseSplit(split: TurnSplit, calls: number): Normalised {
  const fixes: string[] = [];
  const placed = new Map<number, number>();
  const turns = split.turns.map((t, k) => {
    const kept: number[] = [];
    for (const c of t.calls) {
      if (!Number.isInteger(c) || c < 0 || c >= calls) continue;
      if (placed.has(c)) {
        fixes.push('duplicate-call-dropped');
        continue;
      }
      placed.set(c, k);
      kept.push(c);
    }
    return { ...t, calls: kept };
  });
  if (turns.length) {
    for (let c = 0; c < calls; c++) {
      if (placed.has(c)) continue;
      const k = c === 0 ? 0 : (placed.get(c - 1) ?? 0);
      turns[k]!.calls.push(c);
      placed.set(c, k);
      fixes.push('missing-call-placed');
    }
  }
  for (const t of turns) {
    const sorted = [...t.calls].sort((a, b) => a - b);
    if (sorted.some((c, i) => c !== t.calls[i])) fixes.push('calls-ordered');
    t.calls = sorted;
  }
  const nonEmpty = turns.filter((t) => t.calls.length > 0);
  if (nonEmpty.length < turns.length) fixes.push('empty-turn-dropped');
  return { turns: nonEmpty, fixes };
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
  const rendered = ctx.prompts.render(template, { prompt: scenario.prompt, call_count: calls.length, workflow_json: JSON.stringify(workflow, null, 2) });
  // Values the single-turn record already lacks are the mock stage's problem, not the split's.
  const before = new Set(checkIntegrity({ calls, outputs, prompt: scenario.prompt, spec: ctx.spec }).map((v) => `${v.callIndex}|${v.param}`));

  const check = (raw: TurnSplit): Problem[] => {
    const split = normaliseSplit(raw, calls.length);
    if (split.turns.length === 1) return [];
    const problems: Problem[] = [];
    for (const p of checkTurns(split.turns, calls, ctx.spec).problems) problems.push({ category: 'structure', message: p.message });
    split.turns.forEach((t, k) => {
      if (!t.prompt.trim()) problems.push({ category: 'structure', message: `turn ${k} has an empty prompt` });
    });
    if (problems.length) return problems;
    for (const v of checkIntegrity({ calls, outputs, prompt: scenario.prompt, turns: split.turns, spec: ctx.spec })) {
      if (before.has(`${v.callIndex}|${v.param}`)) continue;
      const k = split.turns.findIndex((t) => t.calls.includes(v.callIndex));
      problems.push({
        category: 'integrity',
        message: `call ${v.callIndex} (${calls[v.callIndex]?.name}) in turn ${k} uses ${JSON.stringify(v.value)} as "${v.param}", but no earlier output and no prompt of turns 0–${k} contains it: the user must say it in turn ${k} or before.`,
      });
    }
    return problems;
  };
  const outcome = await ask(ctx, {
    stage: STAGES.turns,
    request: {
      stage: STAGES.turns,
      promptVersion: rendered.version,
      prompt: rendered.text,
      schema: TurnSplit,
      jsonSchema: turnSplitSchema(calls.length),
      cacheInputs: { mode },
    },
    check,
    accept: (raw) => normaliseSplit(raw, calls.length),
    repairs: (raw) => normaliseSplit(raw, calls.length).fixes,
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
