/**
 * Derive or drop, never discard: what a judge reply gets wrong that the code can decide on its
 * own is fixed here, with a note, instead of costing the whole reply (the reply schema already
 * states what can be stated: turn count, call numbers, scales).
 *
 * - A finding that cites a call outside its turn is dropped.
 * - A coherence score that disagrees with the manifestations listed for it follows the paper's
 *   Table 19 rule: 3 = no manifestation, 2 = one or two minor, 1 = three or more (or one critical).
 * - A null where a score is needed (ordering of a multi-call turn, arguments of a turn with calls,
 *   context retention of a later turn) leaves that sub-score unscored; the rest of the reply counts.
 *
 * Pure, so a reply replayed from the cache is reconciled to the same value with the same notes.
 */
import { COH_ASPECTS } from '../vocabulary';
import type { CohReply, TcReply } from './schemas';
import type { JudgeView } from './view';

/**
 * The coherence score Table 19 gives a list of manifestations, keeping the judge's score where it
 * is allowed: none → 3; one or two → 2, or 1 when the judge called it poor (a critical one);
 * three or more → 1.
 */
export function cohScoreForManifestations(score: number, manifestations: number): number {
  if (manifestations === 0) return 3;
  if (manifestations >= 3) return 1;
  return score === 1 ? 1 : 2;
}

/** A reconciled reply and what was changed in it. */
export interface Reconciled<T> {
  reply: T;
  notes: string[];
}

/** Drops findings that cite a call outside their turn; notes nulls that leave a sub-score unscored. */
export function reconcileTcReply(reply: TcReply, view: JudgeView): Reconciled<TcReply> {
  const notes: string[] = [];
  const turns = reply.turns.map((t, i) => {
    const turn = view.turns[i];
    if (!turn) return t;
    const n = turn.calls.length;
    if (n >= 2 && t.ordering === null) notes.push(`turn ${i}: ordering not scored (the judge gave null for a turn of ${n} calls)`);
    if (n >= 1 && t.arguments === null) notes.push(`turn ${i}: arguments not scored (the judge gave null for a turn with calls)`);
    const findings = t.findings.filter((f) => {
      if (f.call === null || turn.calls.includes(f.call)) return true;
      notes.push(
        `turn ${i}: dropped a judge finding on call ${f.call} (${f.subdimension}), which is not a call of this turn (its calls: ${turn.calls.join(', ') || 'none'})`,
      );
      return false;
    });
    return { ...t, findings };
  });
  return { reply: { turns }, notes };
}

/** Brings each coherence score in line with its manifestations (Table 19); notes every change and every needed score left null. */
export function reconcileCohReply(reply: CohReply, view: JudgeView): Reconciled<CohReply> {
  const notes: string[] = [];
  const turns = reply.turns.map((t, i) => {
    if (i >= view.turns.length) return t;
    const out = { ...t };
    if (i > 0 && t.context_retention === null) notes.push(`turn ${i}: context_retention not scored (the judge gave null for a turn with history)`);
    for (const a of COH_ASPECTS) {
      const r = t[a];
      if (!r || (a === 'context_retention' && i === 0)) continue;
      const score = cohScoreForManifestations(r.score, r.manifestations.length);
      if (score === r.score) continue;
      const listed = r.manifestations.length ? r.manifestations.join(', ') : 'no manifestation';
      notes.push(`turn ${i} ${a}: the judge's score ${r.score} with ${listed} listed is ${score} by Table 19's rule`);
      (out as Record<string, unknown>)[a] = { ...r, score };
    }
    return out;
  });
  return { reply: { turns }, notes };
}
