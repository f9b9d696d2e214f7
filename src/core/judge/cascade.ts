/**
 * Cascading penalties on argument sub-scores (Table 18's footnote), enforced in code on every
 * reply so that a judge that forgets them cannot let one critical error hide behind five good
 * sub-scores. The judge is asked to apply the same rules in its prompt (`prompts/judge-tc*.txt`);
 * keep the numbers in step.
 */
import type { ArgumentSub } from '../vocabulary';

/** Argument sub-scores of one turn on the judge's 0–10 scale; null when not scored. */
export type ArgumentScores = Record<ArgumentSub, number | null>;

/** What the exact checks say about the turn that can set off a cascade on their own. */
export interface CascadeTriggers {
  /** A parameter was passed under a wrong name (the schema has a close, unused name). */
  misnamedParam: boolean;
  /** A required parameter is missing. */
  missingRequired: boolean;
  /** A call's values are mostly found nowhere (its exact value accuracy is at or below {@link WRONG_VALUE_MAX}). */
  wrongValue: boolean;
}

/** One cascade: when it fires and which sub-scores it caps. */
export interface CascadeRule {
  id: 'wrong-name' | 'missing-required' | 'wrong-value';
  /** Human wording, also used in notes. */
  description: string;
  fires: (scores: ArgumentScores, triggers: CascadeTriggers) => boolean;
  caps: readonly ArgumentSub[];
}

/** "Near zero" on the 0–10 scale: a capped sub-score is at most this (the judge may say 0 or 1). */
export const CASCADE_CEILING = 1;
/** A name-accuracy score at or below this counts as a wrong parameter name. */
export const WRONG_NAME_MAX = 2;
/** A completeness score at or below this counts as a missing required parameter (when no exact fact says so). */
export const MISSING_REQUIRED_MAX = 2;
/** A value-accuracy score at or below this counts as a wrong value. */
export const WRONG_VALUE_MAX = 3;

const atMost = (v: number | null, max: number): boolean => v !== null && v <= max;

/** Table 18's footnote as data. */
export const CASCADE_RULES: readonly CascadeRule[] = [
  {
    id: 'wrong-name',
    description: `a wrong parameter name (name accuracy ≤ ${WRONG_NAME_MAX}) zeroes value, type and format`,
    fires: (s, t) => t.misnamedParam || atMost(s.name, WRONG_NAME_MAX),
    caps: ['value', 'type', 'format'],
  },
  {
    id: 'missing-required',
    description: 'a missing required parameter zeroes value, type and format',
    fires: (s, t) => t.missingRequired || atMost(s.completeness, MISSING_REQUIRED_MAX),
    caps: ['value', 'type', 'format'],
  },
  {
    id: 'wrong-value',
    description: `a wrong value (value accuracy ≤ ${WRONG_VALUE_MAX}) zeroes type, format and relevancy`,
    fires: (s, t) => t.wrongValue || atMost(s.value, WRONG_VALUE_MAX),
    caps: ['type', 'format', 'relevancy'],
  },
];

/** A cascade that fired, and what it changed. */
export interface CascadeApplied {
  rule: CascadeRule['id'];
  /** Sub-scores it lowered (from → to, 0–10); empty when they were already near zero. */
  capped: { sub: ArgumentSub; from: number; to: number }[];
}

/**
 * Applies the cascade rules. Pure. Every rule is tested against the scores as given, not as
 * lowered by another rule: a value zeroed because its parameter name was wrong is undetermined,
 * not "wrong", so it does not go on to zero relevancy too. Null sub-scores stay null.
 */
export function applyCascades(scores: ArgumentScores, triggers: CascadeTriggers): { scores: ArgumentScores; applied: CascadeApplied[] } {
  const out: ArgumentScores = { ...scores };
  const applied: CascadeApplied[] = [];
  for (const rule of CASCADE_RULES) {
    if (!rule.fires(scores, triggers)) continue;
    const capped: CascadeApplied['capped'] = [];
    for (const sub of rule.caps) {
      const v = out[sub];
      if (v === null || v <= CASCADE_CEILING) continue;
      out[sub] = CASCADE_CEILING;
      capped.push({ sub, from: v, to: CASCADE_CEILING });
    }
    applied.push({ rule: rule.id, capped });
  }
  return { scores: out, applied };
}
