/**
 * What a judge looks at: a record (or an agent's trajectory on it) laid out as turns of calls
 * and replies, plus the exact context of each turn (facts, caps, grounding). Unsupervised mode
 * judges the record's own workflow (the paper's mode: the generated scenario is both output and
 * oracle); oracle mode judges a given trajectory against the record's expected calls.
 */
import type { HarnessRecord } from '../harness/format';
import { appearsIn, textLeaves } from '../checks/integrity';
import { describeSource, groundWorkflow, isUngroundedFinding, type GroundedValue } from '../checks/grounding';
import { checkDeterminacy, type DeterminacyResult } from '../checks/determinacy';
import type { Spec } from '../spec/model';
import type { ScoreCap, TurnContext } from './aggregate';
import { alignWithReference, exactFacts, traceChainedValues, valueAtPath, type CallFacts, type ChainedValue, type OracleAlignment } from './facts';
import type { Trajectory } from './schemas';

/** How a record is judged. */
export type JudgeMode = 'unsupervised' | 'oracle';

/** One call in a view; `index` is its number in the judged call list (what findings cite). */
export interface ViewCall {
  index: number;
  name: string;
  arguments: unknown;
  /** What the call returned, when known. */
  output: unknown;
  hasOutput: boolean;
  /** The generator's reason for the call (reference and unsupervised calls). */
  explanation?: string;
}

/** One turn of a view. */
export interface ViewTurn {
  index: number;
  /** The user's message. */
  prompt: string;
  /** Indices into `JudgeView.calls`. */
  calls: number[];
  /** The assistant's reply ('' when there is none). */
  response: string;
}

/** A record laid out for judging. */
export interface JudgeView {
  mode: JudgeMode;
  view: 'single-turn' | 'multi-turn';
  /** The calls being judged (the record's expected calls, or the agent's). */
  calls: ViewCall[];
  turns: ViewTurn[];
  /** Oracle mode: the record's expected calls per turn. */
  reference?: { calls: ViewCall[]; turns: { calls: number[]; response: string }[] };
  /** Things about the layout worth a note (calls in no turn, …). */
  notes: string[];
}

/** Which view of a record is judged: its single-turn task, or its conversation (records that have one). */
export type RecordView = JudgeView['view'];

/**
 * Lays a record out for judging; an error (as a value) when a trajectory does not fit it.
 * Unsupervised, a record with a conversation is laid out as its conversation unless `as` is
 * `'single-turn'`: then as its single-turn task (the prompt, every call, the expected response).
 */
export function buildView(
  record: HarnessRecord,
  mode: JudgeMode,
  trajectory?: Trajectory,
  as?: RecordView,
): { ok: true; view: JudgeView } | { ok: false; error: string } {
  const expected: ViewCall[] = record.expected_tools.map((c, index) => {
    const mock = record.mock_outputs[index];
    return { index, name: c.name, arguments: c.arguments, output: mock?.output, hasOutput: mock !== undefined, explanation: c.explanation };
  });
  const notes: string[] = [];
  const multi = record.conversation.length >= 2 && !(mode === 'unsupervised' && as === 'single-turn');
  const refTurns: { prompt: string; calls: number[]; response: string }[] = multi
    ? splitTurns(record, notes)
    : [{ prompt: record.prompt, calls: expected.map((c) => c.index), response: record.expected_response }];

  if (mode === 'unsupervised') {
    return {
      ok: true,
      view: { mode, view: multi ? 'multi-turn' : 'single-turn', calls: expected, turns: refTurns.map((t, index) => ({ index, ...t })), notes },
    };
  }

  if (!trajectory) return { ok: false, error: 'oracle mode needs a trajectory (the calls an agent made)' };
  const n = trajectory.turns.length;
  let turns = refTurns;
  if (n === 1 && multi) {
    // The agent was given the single-turn task: judge it against the whole workflow.
    notes.length = 0;
    turns = [{ prompt: record.prompt, calls: expected.map((c) => c.index), response: record.expected_response }];
  } else if (n !== turns.length) {
    return {
      ok: false,
      error: `the trajectory has ${n} turn(s); the record has ${multi ? `${record.conversation.length} conversation turns` : 'a single-turn task'} (give 1 turn, or one per conversation turn)`,
    };
  }
  const calls: ViewCall[] = [];
  const viewTurns: ViewTurn[] = trajectory.turns.map((t, index) => {
    const ids: number[] = [];
    for (const c of t.calls) {
      ids.push(calls.length);
      calls.push({ index: calls.length, name: c.name, arguments: c.arguments, output: c.output, hasOutput: c.output !== undefined });
    }
    return { index, prompt: turns[index]?.prompt ?? record.prompt, calls: ids, response: t.response ?? '' };
  });
  return {
    ok: true,
    view: {
      mode,
      view: viewTurns.length >= 2 ? 'multi-turn' : 'single-turn',
      calls,
      turns: viewTurns,
      reference: { calls: expected, turns: turns.map((t) => ({ calls: t.calls, response: t.response })) },
      notes,
    },
  };
}

/** The conversation's turns with valid, first-seen call indices; calls in no turn are noted. */
function splitTurns(record: HarnessRecord, notes: string[]): { prompt: string; calls: number[]; response: string }[] {
  const seen = new Set<number>();
  const turns = record.conversation.map((t) => ({
    prompt: t.prompt,
    calls: t.calls.filter((c) => Number.isInteger(c) && c >= 0 && c < record.expected_tools.length && !seen.has(c) && (seen.add(c), true)),
    response: t.followup,
  }));
  const orphans = record.expected_tools.map((_, i) => i).filter((i) => !seen.has(i));
  if (orphans.length) notes.push(`call(s) ${orphans.join(', ')} are in no conversation turn and were not judged`);
  return turns;
}

/** The exact context of every turn of a view. */
export interface ViewFacts {
  /** Facts of every judged call, by call index. */
  calls: CallFacts[];
  /** Values of later calls that occur in earlier outputs. */
  chained: ChainedValue[];
  /** Where every argument value of every judged call comes from (`checks/grounding.ts`). */
  grounding: GroundedValue[];
  /** The grounding's findings: ids, paths, names, dates and amounts found nowhere the call could see. */
  ungrounded: GroundedValue[];
  /** The record's determinacy (`checks/determinacy.ts`); undefined in oracle mode, where the calls are an agent's. */
  determinacy?: DeterminacyResult;
  /** Oracle mode: the alignment of each turn with the reference. */
  alignments?: OracleAlignment[];
  /** One context per turn, for `scoreTcTurn`. */
  turns: TurnContext[];
}

/** Computes the exact facts of a view against the spec. */
export function viewFacts(view: JudgeView, spec: Spec): ViewFacts {
  const grounding = groundWorkflow({
    calls: view.calls,
    outputs: view.calls.map((c) => (c.hasOutput ? c.output : undefined)),
    turns: view.turns.map((t) => ({ prompt: t.prompt, calls: t.calls })),
    spec,
  });
  // A record is a test: its values must be ones an agent could tell. An agent's calls are not (oracle mode).
  const determinacy = view.reference
    ? undefined
    : checkDeterminacy(
        {
          calls: view.calls,
          outputs: view.calls.map((c) => (c.hasOutput ? c.output : undefined)),
          turns: view.turns.map((t) => ({ prompt: t.prompt, calls: t.calls })),
          spec,
        },
        grounding,
      );
  const calls = exactFacts(spec, view.calls, grounding, determinacy?.findings);
  // Calls in turn order: the order in which outputs become visible.
  const order = view.turns.flatMap((t) => t.calls);
  const position = new Map(order.map((c, i) => [c, i] as const));
  const ordered = order.map((i) => view.calls[i] as ViewCall);
  const chained = traceChainedValues(
    ordered,
    ordered.map((c) => (c.hasOutput ? c.output : undefined)),
  ).map((v) => ({
    ...v,
    callIndex: order[v.callIndex] ?? v.callIndex,
    fromCall: order[v.fromCall] ?? v.fromCall,
  }));
  const ungrounded = grounding.filter(isUngroundedFinding);

  const turnOf = new Map<number, number>();
  view.turns.forEach((t) => t.calls.forEach((c) => turnOf.set(c, t.index)));
  const groundedAt = (callIndex: number, param: string): string | undefined => {
    const call = view.calls[callIndex];
    if (!call) return undefined;
    // The exact grounding decides where it has the value; a judge's looser path falls back to a search.
    const exact = grounding.find((g) => g.callIndex === callIndex && g.param === param.replace(/\[(\d+)\]/g, '.$1'));
    if (exact) return exact.source.kind === 'none' ? undefined : describeSource(exact.source);
    const value = valueAtPath(call.arguments, param);
    if (typeof value !== 'string' && typeof value !== 'number') return undefined;
    const ti = turnOf.get(callIndex) ?? 0;
    const prompts = view.turns.slice(0, ti + 1).map((t) => t.prompt);
    if (appearsIn(value, [], prompts)) return "the user's message";
    const pos = position.get(callIndex) ?? 0;
    for (let p = 0; p < pos; p++) {
      const prior = ordered[p];
      if (prior?.hasOutput && appearsIn(value, textLeaves(prior.output), [])) return `the output of call ${prior.index}`;
    }
    return undefined;
  };

  const alignments = view.reference
    ? view.turns.map((t, ti) =>
        alignWithReference(
          (view.reference?.turns[ti]?.calls ?? []).map((i) => ({ index: i, call: view.reference?.calls[i] as ViewCall })),
          t.calls.map((i) => ({ index: i, call: view.calls[i] as ViewCall })),
        ),
      )
    : undefined;

  const turns: TurnContext[] = view.turns.map((t, ti) => {
    const facts = t.calls.map((i) => calls[i] as CallFacts);
    const caps: ScoreCap[] = [];
    const unknown = facts.filter((f) => f.tool === 'unknown');
    const a = alignments?.[ti];
    if (a && view.reference) {
      const ref = view.reference;
      const wrong = a.unmatchedActual.filter((i) => !unknown.some((f) => f.callIndex === i));
      if (a.unmatchedActual.length && t.calls.length) {
        const expectedNames = [...new Set((ref.turns[ti]?.calls ?? []).map((i) => ref.calls[i]?.name))].join(', ') || 'none';
        caps.push({
          sub: 'selection.correctness',
          max: (10 * (t.calls.length - a.unmatchedActual.length)) / t.calls.length,
          reason: `the reference does not call ${a.unmatchedActual.map((i) => `'${view.calls[i]?.name}'`).join(', ')} in this turn`,
          source: 'oracle',
          findings: wrong.map((i) => ({
            callIndex: i,
            param: null,
            subdimension: 'selection.correctness',
            score: 0,
            reason: `'${view.calls[i]?.name}' is not among the reference's tools for this turn (${expectedNames})`,
            source: 'oracle' as const,
            kind: 'wrong_tool',
          })),
        });
      }
      const expectedCount = ref.turns[ti]?.calls.length ?? 0;
      if (a.unmatchedExpected.length && expectedCount) {
        caps.push({
          sub: 'selection.completeness',
          max: (10 * (expectedCount - a.unmatchedExpected.length)) / expectedCount,
          reason: `the agent never called ${a.unmatchedExpected.map((i) => `'${ref.calls[i]?.name}'`).join(', ')}, which the reference needs`,
          source: 'oracle',
          findings: a.unmatchedExpected.map((i) => ({
            callIndex: null,
            param: null,
            subdimension: 'selection.completeness',
            score: 0,
            reason: `reference call ${i} '${ref.calls[i]?.name}' was never made`,
            source: 'oracle' as const,
            kind: 'missing',
          })),
        });
      }
    }
    return { turn: t.index, calls: [...t.calls], facts, caps, groundedAt };
  });
  return { calls, chained, grounding, ungrounded, ...(determinacy ? { determinacy } : {}), alignments, turns };
}
