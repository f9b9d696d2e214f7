/**
 * From a judge's raw turn scores (or none, offline) and the exact facts to stored numbers, in
 * pure functions:
 * ```
 * judge reply (0–10) ─ waive "ungrounded" findings on chained values ─ exact facts win where
 *   they contradict ─ cascades ─ normalise (÷10) ─ dimension = mean of its sub-scores
 *   (usage = necessity; overuse kept as a diagnostic) ─ turn TC = mean of the applicable
 *   dimensions (ordering only with 2+ calls, arguments only with 1+; one the judge left null is
 *   unscored and left out, with a note) ─ record = mean of turns
 * coherence (1–3) ─ s / 3, the paper's normalisation (its Table 8 aspect means average 2.566 and
 *   its coherence is 0.855 = 2.566 / 3) ─ turn Coh = mean of the aspects (context retention only
 *   with history) ─ record = mean of turns
 * ```
 */
import { mean } from '../util/mean';
import { applyCascades, CASCADE_RULES, WRONG_VALUE_MAX, type ArgumentScores, type CascadeApplied, type CascadeTriggers } from './cascade';
import { callFails, EXACT_ARGUMENT_SUBS, type CallFacts, type ExactArgumentSub } from './facts';
import type { GroundedValue } from '../checks/grounding';
import {
  ARGUMENT_REPORT_KEYS,
  ARGUMENT_SUBS,
  COH_ASPECTS,
  COH_SCALE_MAX,
  DIAGNOSTIC_SUBDIMENSIONS,
  TC_DIMENSIONS,
  TC_SUBDIMENSION_KEYS,
  TC_SUBDIMENSIONS,
  type TcDimension,
  type TcSubdimension,
} from '../vocabulary';
import type { CohTurnReply, Disagreement, StoredFinding, TcFinding, TcTurnReply } from './schemas';
import { round4 } from '../util/round4';

/** A judge score at or above this says "no real problem" (0–10). */
export const PASS_MIN = 8;
/** A judge score at or below this says "a real problem" (0–10). */
export const FAIL_MAX = 7;
/** A cap lowers the judge by at least this much (0–10) before it is reported as a disagreement. */
export const CAP_DISAGREEMENT_MIN = 2;

/** Raw (0–10) TC sub-scores of a turn keyed by sub-dimension; null when not scored. */
export type RawTcScores = Record<TcSubdimension, number | null>;

/** An upper bound on a selection sub-score that exact facts (or the oracle) set, with why. */
export interface ScoreCap {
  sub: 'selection.correctness' | 'selection.completeness';
  /** 0–10. */
  max: number;
  reason: string;
  source: 'exact' | 'oracle';
  /** Findings that locate the cause. */
  findings: Omit<StoredFinding, 'turn'>[];
}

/** Everything known about a turn before the judge's reply is read. */
export interface TurnContext {
  turn: number;
  /** Indices of the turn's calls (in the judged call list). */
  calls: readonly number[];
  /** Exact facts of those calls, same order. */
  facts: readonly CallFacts[];
  /** Selection caps beyond the unknown-tool cap every turn gets (the oracle's tool comparison). */
  caps?: readonly ScoreCap[];
  /**
   * Exact grounding of an argument value: where it occurs (`"the output of call 0"`, `"the
   * user's message"`), or undefined when it occurs nowhere the call could have seen.
   */
  groundedAt?: (callIndex: number, param: string) => string | undefined;
}

/** A scored turn of tool calling. */
export interface ScoredTcTurn {
  turn: number;
  calls: number[];
  /** Final sub-scores, 0–1 (null: not scored or not applicable). */
  subdimensions: Record<TcSubdimension, number | null>;
  /** Dimension scores, 0–1 (null: not scored or not applicable). */
  dimensions: Record<TcDimension, number | null>;
  /** Mean of the applicable dimensions the judge scored; null without a judge reply. */
  tc: number | null;
  /** Judge-independent exact argument score (facts only, their cascades), 0–1; null unless every call was checkable. */
  exact: number | null;
  /** Its six sub-scores over the turn's calls of known tools (0–1); null when it has none. */
  exactArguments: Record<ExactArgumentSub, number> | null;
  cascades: CascadeApplied[];
  disagreements: Disagreement[];
  findings: StoredFinding[];
  rationale?: string;
}

const norm10 = (v: number | null): number | null => (v === null ? null : round4(Math.min(10, Math.max(0, v)) / 10));

/** The judge reply's field for each sub-dimension. */
function rawFromReply(t: TcTurnReply): RawTcScores {
  return {
    'usage.necessity': t.usage.necessity,
    'usage.overuse': t.usage.overuse,
    'selection.correctness': t.selection.correctness,
    'selection.specificity': t.selection.specificity,
    'selection.completeness': t.selection.completeness,
    'ordering.sequence_logic': t.ordering?.sequence_logic ?? null,
    'ordering.dependency_handling': t.ordering?.dependency_handling ?? null,
    'ordering.efficiency': t.ordering?.execution_efficiency ?? null,
    ...(Object.fromEntries(ARGUMENT_SUBS.map((s) => [`arguments.${s}`, t.arguments?.[ARGUMENT_REPORT_KEYS[s]] ?? null])) as Record<
      (typeof TC_SUBDIMENSIONS.arguments)[number],
      number | null
    >),
  };
}

/** The argument sub-scores of a turn, keyed as the cascades name them. */
const argumentScores = (raw: RawTcScores): ArgumentScores => Object.fromEntries(ARGUMENT_SUBS.map((s) => [s, raw[`arguments.${s}`]])) as ArgumentScores;

const emptyRaw = (): RawTcScores => Object.fromEntries(TC_SUBDIMENSION_KEYS.map((k) => [k, null])) as RawTcScores;

/**
 * The exact view of a turn: per decidable sub-dimension its score over checkable calls, whether
 * any call fails it, whether every call was checkable; and the cascade triggers the facts set
 * off on their own (it is passed to the cascades as is).
 */
export function turnExact(facts: readonly CallFacts[]): CascadeTriggers & {
  scores: Record<ExactArgumentSub, number | null>;
  failing: Record<ExactArgumentSub, boolean>;
  complete: boolean;
} {
  const checkable = facts.filter((f) => f.scores !== null);
  const scores = {} as Record<ExactArgumentSub, number | null>;
  const failing = {} as Record<ExactArgumentSub, boolean>;
  for (const sub of EXACT_ARGUMENT_SUBS) {
    scores[sub] = mean(checkable.map((f) => f.scores?.[sub] ?? 10));
    failing[sub] = checkable.some((f) => callFails(f, sub));
  }
  return {
    scores,
    failing,
    complete: facts.length > 0 && checkable.length === facts.length,
    misnamedParam: failing.name,
    missingRequired: failing.completeness,
    // Like the two above, per call: one call's ungrounded ID is not diluted by the turn's other calls.
    wrongValue: checkable.some((f) => (f.scores?.value ?? 10) <= WRONG_VALUE_MAX),
  };
}

/** Why an ungrounded value is a finding, in a developer's words. */
const ungroundedReason = (g: GroundedValue): string =>
  `'${g.param}' = ${JSON.stringify(g.value).slice(0, 80)} (${g.class}) occurs in neither the user's words so far, nor an earlier output, nor the parameter's schema`;

/** Findings that point at each exact failure of the turn's calls. */
export function exactFindings(turn: number, facts: readonly CallFacts[]): StoredFinding[] {
  const out: StoredFinding[] = [];
  for (const f of facts) {
    if (f.tool === 'unknown') continue; // reported as a selection cap
    if (f.tool === 'uncheckable') {
      const message = f.errors[0]?.message ?? 'the tool schema cannot be compiled';
      out.push({
        turn,
        callIndex: f.callIndex,
        param: null,
        subdimension: 'arguments',
        score: 0,
        reason: `not checked: ${message}`,
        source: 'exact',
        kind: 'other',
      });
      continue;
    }
    const s = f.scores;
    const add = (sub: ExactArgumentSub, param: string | null, reason: string, kind: string): void => {
      out.push({ turn, callIndex: f.callIndex, param, subdimension: `arguments.${sub}`, score: round4((s?.[sub] ?? 0) / 10), reason, source: 'exact', kind });
    };
    const messageFor = (param: string, kinds: readonly string[]): string =>
      f.errors.find((e) => kinds.includes(e.kind) && (e.param ?? '(arguments)').split('.')[0] === param)?.message ?? param;
    for (const p of f.missingRequired) add('completeness', p === '(arguments)' ? null : p, messageFor(p, ['missing-required', 'other']), 'missing');
    for (const g of f.ungrounded) add('value', g.param, ungroundedReason(g), 'ungrounded');
    for (const d of f.undetermined) add('value', d.param, `not determined (${d.kind}): ${d.message}`, 'undetermined');
    for (const m of f.misnamed) add('name', m.param, `'${m.param}' is not a parameter of '${f.name}'; the schema's name is '${m.suggestion}'`, 'misnamed');
    for (const p of f.extra) add('relevancy', p, messageFor(p, ['unknown-param']), 'extra');
    for (const p of f.typeErrors) add('type', p === '(arguments)' ? null : p, messageFor(p, ['type']), 'wrong_type');
    for (const p of f.formatErrors) add('format', p, messageFor(p, ['enum', 'format', 'other']), 'bad_format');
  }
  return out;
}

/**
 * Whether a cascade (set off by the facts or by the judge's own name, completeness or value
 * score) caps `sub` anyway: then a low score there is the cascade, not a disagreement to undo.
 */
function cascadeExplains(sub: ExactArgumentSub, raw: RawTcScores, ex: ReturnType<typeof turnExact>): boolean {
  const args = argumentScores(raw);
  return CASCADE_RULES.some((rule) => rule.caps.includes(sub) && rule.fires(args, ex));
}

/**
 * Scores one turn of tool calling. `reply` is the judge's turn (null for the offline judge,
 * which scores only what the exact checks decide). Pure.
 */
export function scoreTcTurn(ctx: TurnContext, reply: TcTurnReply | null): ScoredTcTurn {
  const turn = ctx.turn;
  const raw = reply ? rawFromReply(reply) : emptyRaw();
  const ex = turnExact(ctx.facts);
  const disagreements: Disagreement[] = [];
  const findings: StoredFinding[] = [];
  const nCalls = ctx.calls.length;

  // 1. Chained values: an "ungrounded" value finding refuted by the exact grounding is waived.
  const valueFindings: { f: TcFinding; stored: StoredFinding }[] = [];
  for (const f of reply?.findings ?? []) {
    const stored: StoredFinding = {
      turn,
      callIndex: f.call,
      param: f.param,
      subdimension: f.subdimension,
      score: round4(f.score / 10),
      reason: f.reason,
      source: 'judge',
      kind: f.kind,
    };
    if (f.subdimension === 'arguments.value' && f.kind === 'ungrounded' && f.call !== null && f.param !== null && ctx.groundedAt) {
      const where = ctx.groundedAt(f.call, f.param);
      if (where) {
        stored.waived = `chained value: it appears in ${where}`;
        disagreements.push({
          turn,
          subdimension: 'arguments.value',
          judge: stored.score,
          final: 1,
          callIndex: f.call,
          param: f.param,
          reason: `the judge called '${f.param}' ungrounded, but its value appears in ${where}`,
        });
      }
    }
    if (f.subdimension === 'arguments.value') valueFindings.push({ f, stored });
    findings.push(stored);
  }
  const waived = valueFindings.filter((v) => v.stored.waived !== undefined);
  if (waived.length && raw['arguments.value'] !== null) {
    const remaining = valueFindings.filter((v) => v.stored.waived === undefined).map((v) => v.f.score);
    const before = raw['arguments.value'];
    raw['arguments.value'] = Math.max(before, remaining.length ? Math.min(...remaining) : 10);
    // The per-finding entries above said final 1; say what the turn's value score became.
    for (const d of disagreements) if (d.subdimension === 'arguments.value') d.final = round4(raw['arguments.value'] / 10);
  }

  // 2. Exact facts: the offline judge takes them as its scores; an LLM judge is overruled where it contradicts them.
  if (nCalls > 0) {
    for (const sub of EXACT_ARGUMENT_SUBS) {
      const key = `arguments.${sub}` as const;
      const e = ex.scores[sub];
      if (e === null) continue;
      const j = raw[key];
      if (!reply) {
        raw[key] = ex.complete ? e : null; // an unchecked call leaves the sub-score undecided
        continue;
      }
      if (j === null) continue;
      let final = j;
      let why: string | undefined;
      if (ex.failing[sub] && j >= PASS_MIN) {
        final = Math.min(j, e);
        why = `exact checks find ${describeFailure(sub, ctx.facts)}`;
      } else if (sub !== 'format' && sub !== 'value' && !ex.failing[sub] && ex.complete && j <= FAIL_MAX && !cascadeExplains(sub, raw, ex)) {
        // Format stays the judge's call when ajv sees nothing (schemas rarely declare every format), and
        // so does value: a grounded value can still be the wrong one.
        final = 10;
        why = `exact checks find no ${sub === 'completeness' ? 'missing required parameter' : sub === 'name' ? 'wrong parameter name' : sub === 'type' ? 'type error' : 'parameter outside the schema'}`;
      }
      if (why !== undefined && final !== j) {
        raw[key] = final;
        disagreements.push({ turn, subdimension: key, judge: round4(j / 10), final: round4(final / 10), reason: why });
      }
    }
    findings.push(...exactFindings(turn, ctx.facts));
  }

  // 3. Selection caps (unknown tools; in oracle mode, tools the reference does not use).
  for (const cap of [...unknownToolCaps(ctx.facts), ...(ctx.caps ?? [])]) {
    findings.push(...cap.findings.map((f) => ({ ...f, turn })));
    const j = raw[cap.sub];
    // The offline judge scores no selection itself, but a call of a tool that does not exist is
    // an exact selection failure: it takes the cap as its score.
    if (!reply && cap.source === 'exact' && j === null) {
      raw[cap.sub] = cap.max;
      continue;
    }
    if (j === null || j <= cap.max) continue;
    raw[cap.sub] = cap.max;
    if (j - cap.max >= CAP_DISAGREEMENT_MIN)
      disagreements.push({ turn, subdimension: cap.sub, judge: round4(j / 10), final: round4(cap.max / 10), reason: cap.reason });
  }

  // 4. Cascades, on the argument sub-scores.
  let cascades: CascadeApplied[] = [];
  if (nCalls > 0) {
    const result = applyCascades(argumentScores(raw), ex);
    cascades = result.applied;
    for (const s of ARGUMENT_SUBS) raw[`arguments.${s}`] = result.scores[s];
  }

  // 5. Applicability, normalisation, dimensions, turn score.
  if (nCalls < 2) for (const k of TC_SUBDIMENSIONS.ordering) raw[k] = null;
  if (nCalls < 1) for (const k of TC_SUBDIMENSIONS.arguments) raw[k] = null;
  const subdimensions = Object.fromEntries(TC_SUBDIMENSION_KEYS.map((k) => [k, norm10(raw[k])])) as Record<TcSubdimension, number | null>;
  const dimensions = {} as Record<TcDimension, number | null>;
  for (const d of TC_DIMENSIONS) {
    const subs = TC_SUBDIMENSIONS[d].filter((k) => !DIAGNOSTIC_SUBDIMENSIONS.has(k));
    const values = subs.map((k) => subdimensions[k]);
    dimensions[d] = values.every((v): v is number => v !== null) ? round4(mean(values) ?? 0) : null;
  }
  const applicable = TC_DIMENSIONS.filter((d) => (d === 'ordering' ? nCalls >= 2 : d === 'arguments' ? nCalls >= 1 : true));
  // A dimension the judge left null is unscored (judgeRecord notes it); the turn is the mean of the rest.
  const dimValues = applicable.map((d) => dimensions[d]).filter((v): v is number => v !== null);
  const tc = reply && dimValues.length ? round4(mean(dimValues) ?? 0) : null;
  return {
    turn,
    calls: [...ctx.calls],
    subdimensions,
    dimensions,
    tc,
    exact: exactScore(ex, ctx.facts, nCalls),
    exactArguments: nCalls > 0 ? roundSubs(exactSubScores(ex, ctx.facts)) : null,
    cascades,
    disagreements,
    findings,
    rationale: reply?.reasoning,
  };
}

/** A tool that does not exist cannot be the right selection: correctness is capped by the share of real tools. */
export function unknownToolCaps(facts: readonly CallFacts[]): ScoreCap[] {
  const unknown = facts.filter((f) => f.tool === 'unknown');
  if (!unknown.length) return [];
  return [
    {
      sub: 'selection.correctness',
      max: (10 * (facts.length - unknown.length)) / facts.length,
      reason: `${unknown.map((f) => `'${f.name}'`).join(', ')} ${unknown.length === 1 ? 'is not a tool' : 'are not tools'} of the server`,
      source: 'exact',
      findings: unknown.map((f) => ({
        callIndex: f.callIndex,
        param: null,
        subdimension: 'selection.correctness',
        score: 0,
        reason: f.errors[0]?.message ?? `unknown tool '${f.name}'`,
        source: 'exact' as const,
        kind: 'wrong_tool',
      })),
    },
  ];
}

/**
 * The exact argument sub-scores of a turn's known calls (0–1): the decidable sub-scores from the
 * facts alone, after the cascades the facts set off on their own. Null when no call is of a known
 * tool or some call's schema could not be checked.
 */
function exactSubScores(ex: ReturnType<typeof turnExact>, facts: readonly CallFacts[]): Record<ExactArgumentSub, number> | null {
  if (facts.some((f) => f.tool === 'uncheckable') || !facts.some((f) => f.tool === 'known')) return null;
  const capped = applyCascades(Object.fromEntries(ARGUMENT_SUBS.map((s) => [s, ex.scores[s]])) as ArgumentScores, ex).scores;
  const out = {} as Record<ExactArgumentSub, number>;
  for (const s of EXACT_ARGUMENT_SUBS) {
    const v = capped[s];
    if (v === null) return null;
    out[s] = v / 10;
  }
  return out;
}

/**
 * The judge-independent exact argument score of a turn: the mean of {@link exactSubScores}. A call
 * of a tool the server does not have scores 0 (nothing about it can be right), so the turn gets
 * the known calls' score times their share. Null when some call's schema could not be checked.
 */
function exactScore(ex: ReturnType<typeof turnExact>, facts: readonly CallFacts[], nCalls: number): number | null {
  if (nCalls === 0 || facts.some((f) => f.tool === 'uncheckable')) return null;
  const unknown = facts.filter((f) => f.tool === 'unknown').length;
  if (unknown >= nCalls) return 0;
  const subs = exactSubScores(ex, facts);
  if (!subs) return null;
  return round4(((mean(Object.values(subs)) ?? 0) * (nCalls - unknown)) / nCalls);
}

function describeFailure(sub: ExactArgumentSub, facts: readonly CallFacts[]): string {
  const parts: string[] = [];
  for (const f of facts) {
    const list =
      sub === 'completeness'
        ? f.missingRequired.map((p) => `missing required '${p}'`)
        : sub === 'name'
          ? f.misnamed.map((m) => `'${m.param}' should be '${m.suggestion}'`)
          : sub === 'value'
            ? [...f.ungrounded.map((g) => `'${g.param}' found nowhere`), ...f.undetermined.map((d) => `'${d.param}' not determined (${d.kind})`)]
            : sub === 'type'
              ? f.typeErrors.map((p) => `a type error in '${p}'`)
              : sub === 'format'
                ? f.formatErrors.map((p) => `a format error in '${p}'`)
                : f.extra.map((p) => `'${p}' is not in the schema`);
    for (const item of list) parts.push(`${item} (call ${f.callIndex} ${f.name})`);
  }
  return parts.slice(0, 5).join('; ') || sub;
}

/** A scored turn of coherence. */
export interface ScoredCohTurn {
  turn: number;
  /** `coherence.<aspect>` → 0–1, null when not applicable. */
  subdimensions: Record<string, number | null>;
  coh: number | null;
  manifestations: Record<string, string[]>;
  rationale?: string;
}

/**
 * Scores one turn of coherence: each aspect (1–3) → s / 3 (the paper's normalisation, so 1 is
 * about 0.33 and 3 is 1); context retention only when the turn has history. Pure.
 */
export function scoreCohTurn(turn: number, hasHistory: boolean, reply: CohTurnReply | null): ScoredCohTurn {
  const subdimensions: Record<string, number | null> = {};
  const manifestations: Record<string, string[]> = {};
  for (const a of COH_ASPECTS) {
    const r = reply ? reply[a] : null;
    const applicable = a !== 'context_retention' || hasHistory;
    subdimensions[`coherence.${a}`] = r && applicable ? round4(Math.min(3, Math.max(1, r.score)) / COH_SCALE_MAX) : null;
    if (r && applicable && r.manifestations.length) manifestations[a] = [...r.manifestations];
  }
  const values = Object.values(subdimensions).filter((v): v is number => v !== null);
  return { turn, subdimensions, coh: reply && values.length ? round4(mean(values) ?? 0) : null, manifestations, rationale: reply?.reasoning };
}

const roundSubs = (subs: Record<ExactArgumentSub, number> | null): Record<ExactArgumentSub, number> | null =>
  subs && (Object.fromEntries(EXACT_ARGUMENT_SUBS.map((s) => [s, round4(subs[s])])) as Record<ExactArgumentSub, number>);

/** Record-level numbers from scored turns. */
export interface RecordScores {
  tc: number | null;
  coh: number | null;
  /** Exact argument score (0–1), mean over turns that have one. */
  exact: number | null;
  /** Exact argument sub-scores (`arguments.<sub>`, 0–1), each the mean over turns that have one; null when no turn has. */
  exactArguments: Record<string, number | null> | null;
  dimensions: Record<string, number | null>;
  subdimensions: Record<string, number | null>;
  manifestations: Record<string, string[]>;
}

const meanOrNull = (xs: readonly (number | null)[]): number | null => {
  const v = xs.filter((x): x is number => x !== null);
  return v.length ? round4(mean(v) ?? 0) : null;
};

/**
 * Record = mean of its turns, for TC, Coh and every dimension and sub-dimension (each over the
 * turns where it applies). Pure.
 */
export function aggregate(tcTurns: readonly ScoredTcTurn[], cohTurns: readonly ScoredCohTurn[]): RecordScores {
  const dimensions: Record<string, number | null> = {};
  for (const d of TC_DIMENSIONS) dimensions[d] = meanOrNull(tcTurns.map((t) => t.dimensions[d]));
  const subdimensions: Record<string, number | null> = {};
  for (const k of TC_SUBDIMENSION_KEYS) subdimensions[k] = meanOrNull(tcTurns.map((t) => t.subdimensions[k]));
  for (const a of COH_ASPECTS) subdimensions[`coherence.${a}`] = meanOrNull(cohTurns.map((t) => t.subdimensions[`coherence.${a}`] ?? null));
  const manifestations: Record<string, string[]> = {};
  for (const t of cohTurns) {
    for (const [a, codes] of Object.entries(t.manifestations)) manifestations[a] = [...new Set([...(manifestations[a] ?? []), ...codes])];
  }
  return {
    tc: meanOrNull(tcTurns.map((t) => t.tc)),
    coh: meanOrNull(cohTurns.map((t) => t.coh)),
    exact: meanOrNull(tcTurns.map((t) => t.exact)),
    exactArguments: tcTurns.some((t) => t.exactArguments)
      ? Object.fromEntries(EXACT_ARGUMENT_SUBS.map((s) => [`arguments.${s}`, meanOrNull(tcTurns.map((t) => t.exactArguments?.[s] ?? null))]))
      : null,
    dimensions,
    subdimensions,
    manifestations,
  };
}
