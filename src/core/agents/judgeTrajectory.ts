/**
 * The LLM judge in oracle mode on an agent's trajectory (`agent-seer run --judge`): the calls the
 * agent made, turn by turn, with the answers the mock gave it and its replies, judged against the
 * record's expected calls by the existing judge (`judgeRecord`, mode `oracle`: exact facts win),
 * for the paper's tool-calling score and the coherence of the agent's replies.
 */
import type { HarnessRecord } from '../harness/format';
import { judgeRecord, type Trajectory as JudgedTrajectory } from '../judge';
import type { StructuredLlm } from '../llm';
import type { PromptLibrary } from '../llm/prompts';
import type { Spec } from '../spec/model';
import { isRecord } from '../util/isRecord';
import { userTurns } from './agentLoop';
import { turnsOfCalls } from './score';
import type { Trajectory, TrajectoryJudgment } from './trajectory';

/** An LLM judge for trajectories: its id (`provider:model`) and client. */
export interface TrajectoryJudge {
  id: string;
  llm: StructuredLlm;
  prompts?: PromptLibrary;
}

/**
 * Which user turn each call was made in: from the outcome's `callsPerTurn` when the file has it;
 * otherwise (older files) by the turn of the expected call each matched, a refused call staying
 * in the turn of the call before it.
 */
function turnOfCalls(record: HarnessRecord, t: Trajectory, turns: number): number[] {
  const recorded = turnsOfCalls(t.calls.length, t.outcome?.callsPerTurn);
  if (recorded) return recorded;
  const turnOfExpected = new Map<number, number>();
  record.conversation.forEach((c, turn) => c.calls.forEach((i) => turnOfExpected.set(i, turn)));
  let current = 0;
  return t.calls.map((c) => {
    if (c.expectedIndex !== null) current = Math.max(current, turnOfExpected.get(c.expectedIndex) ?? current);
    return Math.min(current, turns - 1);
  });
}

/**
 * The trajectory as the judge reads it: one turn per user turn of the record, each with the calls
 * made in it — with the mock's answer as the output the agent saw, or the mock's refusal — and
 * the agent's reply (empty where it never replied, e.g. stopped at the step limit).
 */
export function judgedTrajectory(record: HarnessRecord, t: Trajectory): JudgedTrajectory {
  const n = userTurns(record).length;
  const turnOf = turnOfCalls(record, t, n);
  const turns: JudgedTrajectory['turns'] = Array.from({ length: n }, (_, i) => ({ calls: [], response: t.outcome?.replies[i] ?? '' }));
  t.calls.forEach((c, i) => {
    const output = c.expectedIndex !== null ? record.mock_outputs[c.expectedIndex]?.output : { error: c.error ?? 'refused by the mock server' };
    turns[turnOf[i]!]!.calls.push({ name: c.name, arguments: isRecord(c.arguments) ? c.arguments : {}, ...(output !== undefined ? { output } : {}) });
  });
  return { turns };
}

/** Judges one trajectory in oracle mode. Rejects only on cancellation and faults no scenario can get past. */
export async function judgeTrajectory(
  spec: Spec,
  record: HarnessRecord,
  t: Trajectory,
  judge: TrajectoryJudge,
  signal: AbortSignal,
): Promise<TrajectoryJudgment> {
  const j = await judgeRecord(record, spec, {
    llm: judge.llm,
    mode: 'oracle',
    trajectory: judgedTrajectory(record, t),
    judgeId: judge.id,
    signal,
    ...(judge.prompts ? { prompts: judge.prompts } : {}),
  });
  return { tc: j.tc, coh: j.coh, status: { tc: j.status.tc, coh: j.status.coh }, notes: j.notes, inputHash: j.inputHash };
}

/** A stored judgment that should be made again: none yet, or the judge failed last time. */
export function needsJudging(t: Trajectory, judgeId: string): boolean {
  const j = t.judgments?.[judgeId];
  return !j || j.status.tc === 'not-judged' || j.status.coh === 'not-judged';
}
