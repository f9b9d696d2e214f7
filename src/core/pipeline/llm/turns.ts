/**
 * Stage 4 with a model: a multi-call scenario split into conversation turns, in
 * mock-data-grounded mode (the outputs are shown and later turns react to them) or standard
 * mode (no outputs shown).
 *
 * Turns refer to workflow calls by index, so a split can only reuse the workflow's own calls
 * with their own arguments. The deterministic checks (re-asked with exact messages): every call
 * in exactly one turn, in workflow order, no empty turns or prompts, and no value a call needs
 * that neither an earlier output nor the prompts up to its turn contain (a split must not hide
 * an ID the original request stated). A reply with a single turn is not re-asked: as in the
 * paper, it means the scenario had no natural split, and the scenario stays single-turn.
 */
import type { ConversationTurn } from '../../harness/format';
import { checkIntegrity } from '../../checks/integrity';
import { TurnSplit, type MockResult, type Scenario } from '../schemas';
import { checkTurns } from '../../checks/turns';
import { ask, type Problem } from './ask';
import { count, discarded, settle, STAGES, type StageContext } from './context';

/** How a split is asked for. */
export type TurnsMode = 'grounded' | 'standard';

/** The outcome of stage 4 for one scenario. */
export interface TurnsOutcome {
  /** The accepted turns (two or more), or undefined when the split was single-turn or discarded. */
  turns: ConversationTurn[] | undefined;
  version: string;
}

const MAX_OUTPUT_CHARS = 1500;

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

  const check = (split: TurnSplit): Problem[] => {
    if (split.turns.length === 1) return [];
    const problems: Problem[] = [];
    for (const p of checkTurns(split.turns, calls, ctx.spec).problems) problems.push({ category: 'structure', message: p.message });
    split.turns.forEach((t, k) => {
      if (t.calls.length === 0)
        problems.push({ category: 'structure', message: `turn ${k} makes no call: every turn must make at least one of the workflow's calls` });
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
    request: { stage: STAGES.turns, promptVersion: rendered.version, prompt: rendered.text, schema: TurnSplit, cacheInputs: { mode } },
    check,
    accept: (split) => split.turns.map((t) => ({ prompt: t.prompt, calls: [...t.calls], followup: t.followup })),
  });
  count(ctx, outcome.counts);
  settle(ctx, STAGES.turns, outcome, 'discarded');
  if (!outcome.ok) return { turns: undefined, version: rendered.version };
  if (outcome.value.length < 2) {
    discarded(ctx, `${STAGES.turns}:single-turn`);
    return { turns: undefined, version: rendered.version };
  }
  return { turns: outcome.value, version: rendered.version };
}
