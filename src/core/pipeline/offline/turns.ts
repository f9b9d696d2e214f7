/**
 * Stage 4, offline: splits a workflow into conversation turns at phase boundaries, as the
 * paper's expansion prompt asks: consecutive reads form one turn, consecutive actions another
 * (information-gathering, then acting on it), and repeated operations of a phase stay batched
 * in one turn. A workflow of one phase splits where a call first depends on an earlier call's
 * output (multi-step). No boundary means no split: a single-turn split is never emitted, the
 * paper discards those. Turn prompts after the first react to a concrete value from the
 * previous turn's outputs; follow-ups report concrete results.
 */
import type { Spec } from '../../spec/model';
import type { MockResult, Scenario, TurnSplit } from '../schemas';
import { chainSources } from './chain';
import { rngFor, hash32 } from './rng';
import { analysisOf, clauseFor } from './scenarios';
import { listJoin, reportCall, userReaction } from './text';
import type { ToolInfo } from './toolInfo';
import { pickNames } from './picks';

/** Most turns a split gets; later phases merge into the last turn. */
export const MAX_TURNS = 4;

/** How many wordings of the opening turn exist (see `TurnsOfflineOptions.variant`). */
export const OPENING_VARIANTS = 12;

/** Options of `turnsOffline`. */
export interface TurnsOfflineOptions {
  seed: number;
  /** Which wording of the opening turn (0 first); a run asks for the next one when an opening repeats an earlier record's. */
  variant?: number;
}

/** Ways of asking for the first phase, and of saying where the conversation is heading. */
const OPENING_ASKS = ['Could you', 'Can you', 'Would you'];
const OPENING_GOALS = ['In the end I want to', 'After that, the aim is to', 'What I am really after is to', 'Ultimately I need to'];

/** Call-index groups of a split (contiguous, in order), or undefined when there is no boundary. */
export function phaseGroups(phases: readonly ('read' | 'act')[], dependsOnEarlier: readonly boolean[]): number[][] | undefined {
  const n = phases.length;
  if (n < 2) return undefined;
  let groups: number[][] = [];
  phases.forEach((p, i) => {
    const last = groups[groups.length - 1];
    if (last && phases[last[0] as number] === p) last.push(i);
    else groups.push([i]);
  });
  if (groups.length < 2) {
    const cut = dependsOnEarlier.findIndex((d, i) => i > 0 && d);
    if (cut <= 0) return undefined;
    groups = [Array.from({ length: cut }, (_, i) => i), Array.from({ length: n - cut }, (_, i) => cut + i)];
  }
  while (groups.length > MAX_TURNS) {
    const tail = groups.pop() as number[];
    (groups[groups.length - 1] as number[]).push(...tail);
  }
  return groups;
}

/** Ways of asking for the next phase once the user has seen a result. */
const NEXT_ASKS = ['Now please', 'Next, please', 'Then please'];

/** Stage 4 offline: a split of at least two turns, or undefined when the workflow has no phase boundary. */
export function turnsOffline(spec: Spec, scenario: Scenario, mock: MockResult, options: TurnsOfflineOptions): TurnSplit | undefined {
  const analysis = analysisOf(spec);
  const calls = scenario.agent_workflow;
  const infos = calls.map((c) => analysis.byName.get(c.name));
  if (infos.some((i) => !i)) return undefined;
  const tools = infos as ToolInfo[];
  const sources = chainSources(analysis, calls);
  const groups = phaseGroups(
    tools.map((t) => t.phase),
    sources.map((s) => s.size > 0),
  );
  if (!groups) return undefined;
  const rng = rngFor(options.seed, 'turns', hash32(`${scenario.title}\u0000${scenario.prompt}`));
  const already = new Set<string>();
  const names = pickNames(tools, calls, sources);
  const turns = groups.map((group, k) => {
    const clauses = group.map((j) => clauseFor(tools[j] as ToolInfo, calls[j]?.arguments ?? {}, sources[j] ?? new Map(), tools, already, names));
    const ask = listJoin(clauses, 'and then');
    let prompt: string;
    if (k === 0) {
      // People say where they are heading: the last step, with its values, makes the opening differ from other runs' openings.
      const last = calls.length - 1;
      const goal = clauseFor(tools[last] as ToolInfo, calls[last]?.arguments ?? {}, sources[last] ?? new Map(), tools, new Set(already), names);
      const v = options.variant ?? 0;
      prompt = `${OPENING_ASKS[v % OPENING_ASKS.length]} ${ask}? ${OPENING_GOALS[Math.floor(v / OPENING_ASKS.length) % OPENING_GOALS.length]} ${goal}.`;
    } else {
      const prevLast = groups[k - 1]?.[groups[k - 1]!.length - 1] ?? 0;
      const reaction = userReaction(tools[prevLast], mock.mock_workflow[prevLast]?.output);
      prompt = `${reaction} ${rng.pick(NEXT_ASKS) ?? 'Now please'} ${ask}.`;
    }
    const followup = group.map((j) => reportCall(tools[j], mock.mock_workflow[j]?.output)).join(' ');
    return { prompt, calls: group, followup };
  });
  return { turns };
}
