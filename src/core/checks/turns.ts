/**
 * Checks of a multi-turn split (stage 4) against its workflow, per the paper's expansion rules:
 * every workflow call appears in exactly one turn, indices are valid, the calls are functions
 * the spec has, the split keeps the workflow's order (a later turn never holds a call that an
 * earlier turn's call depends on), and there are at least two turns (a single-turn expansion
 * is discarded: the scenario lacked the substance to split).
 */
import type { TurnProblem } from '../harness/format';
import type { Spec } from '../spec/model';
import { findTool } from './validateCall';

/** Result of `checkTurns`. */
export interface TurnsCheck {
  ok: boolean;
  problems: TurnProblem[];
  /** Share of workflow calls that appear in exactly one turn (0–1; 1 for an empty workflow). */
  coverage: number;
}

/**
 * Checks turns (each `{calls: number[]}`, indices into the workflow) against the workflow.
 * With `spec`, workflow calls must also name real tools.
 */
export function checkTurns(turns: readonly { calls: readonly number[] }[], workflow: readonly { name: string }[], spec?: Spec): TurnsCheck {
  const problems: TurnProblem[] = [];
  const n = workflow.length;
  if (turns.length === 0) problems.push({ kind: 'no-turns', message: 'the split has no turns' });
  else if (turns.length === 1) problems.push({ kind: 'single-turn', message: 'the split has a single turn; a single-turn expansion is discarded' });

  const seenIn = new Map<number, number>();
  let lastMax = -1;
  turns.forEach((turn, ti) => {
    let prev = -1;
    for (const c of turn.calls) {
      if (!Number.isInteger(c) || c < 0 || c >= n) {
        problems.push({ kind: 'bad-index', turn: ti, callIndex: c, message: `turn ${ti} refers to call ${c}, but the workflow has ${n} call(s)` });
        continue;
      }
      const first = seenIn.get(c);
      if (first !== undefined) {
        problems.push({ kind: 'duplicate-call', turn: ti, callIndex: c, message: `call ${c} appears in turn ${first} and again in turn ${ti}` });
        continue;
      }
      seenIn.set(c, ti);
      if (c < prev || c < lastMax) {
        problems.push({
          kind: 'order',
          turn: ti,
          callIndex: c,
          message: `call ${c} in turn ${ti} comes before a call already made; turns must keep the workflow order`,
        });
      }
      prev = Math.max(prev, c);
    }
    lastMax = Math.max(lastMax, prev);
  });
  for (let c = 0; c < n; c++) {
    if (!seenIn.has(c)) problems.push({ kind: 'missing-call', callIndex: c, message: `call ${c} (${workflow[c]?.name ?? '?'}) is in no turn` });
  }
  if (spec) {
    workflow.forEach((call, c) => {
      if (!findTool(spec, call.name))
        problems.push({ kind: 'unknown-tool', callIndex: c, message: `call ${c} uses '${call.name}', which is not a tool of the spec` });
    });
  }
  return { ok: problems.length === 0, problems, coverage: n === 0 ? 1 : seenIn.size / n };
}
