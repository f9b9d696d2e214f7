/**
 * Reads one stored judgment into the numbers the report needs. The judge (`src/core/judge`)
 * stores record-level `dimensions` (`usage`, `selection`, `ordering`, `arguments`, 0–1),
 * `subdimensions` (`arguments.value`, `coherence.logical_flow`, …, 0–1), `turns[].dimensions`,
 * `manifestations` (aspect → codes) and `exact`. The harness format keeps these maps loose, so
 * this is the one reader of them; the spellings it accepts (the paper's Table 14 names too,
 * `arguments.value_accuracy`, and nested maps) are in `src/core/vocabulary.ts`; everything after it sees a fixed shape. Anything
 * unreadable is `null`, never a throw: a half-judged harness still gets a report.
 */
import { Judgment, judgmentScores, type HarnessRecord } from '../harness/format';
import {
  ARGUMENT_ALIASES,
  ARGUMENT_NAMESPACES,
  ARGUMENT_REPORT_KEYS,
  ARGUMENT_SUBDIMENSIONS,
  ASPECT_ALIASES,
  COH_MANIFESTATIONS,
  COH_SCALE_MAX,
  COHERENCE_NAMESPACES,
  DIMENSION_ALIASES,
  normaliseKey,
  REPORT_ASPECT_ORDER,
  TC_DIMENSIONS,
  type ArgumentSubdimension,
  type CohAspect,
  type TcDimension,
} from '../vocabulary';
import { isRecord } from '../util/isRecord';
import { mean } from '../util/mean';

/** TC dimension scores of one turn (or of a whole record); null = not applicable or not scored. */
export type DimensionScores = Record<TcDimension, number | null>;

/** What the report reads from one judgment. Scores in 0–1 except `aspects` (raw 1–3). */
export interface JudgmentView {
  tc: number | null;
  coh: number | null;
  /** The offline judge's exact argument score (0–1); null when the judge has none. */
  exact: number | null;
  /** Record-level dimension scores. */
  dims: DimensionScores;
  /** Per-turn dimension scores when the judge stored them, else the record-level ones (one entry). */
  turns: DimensionScores[];
  /** Argument sub-dimension scores (record level: the judge's mean over turns). */
  args: Record<ArgumentSubdimension, number | null>;
  /** Coherence aspects on the raw 1–3 scale (Table 8). */
  aspects: Record<CohAspect, number | null>;
  /** Coherence failure manifestations (Table 19 codes), one entry per mention. */
  issues: string[];
  /** Exact argument sub-scores (0–1) whichever the judge; all null when the judgment has none (before judge-4). */
  exactArgs: Record<ArgumentSubdimension, number | null>;
  /** Where the argument values come from; null when the judgment does not say. */
  grounding: { values: number; user: number; output: number; schema: number; none: number; findings: number } | null;
  /** How many of those values the user's words and the outputs shown pin down (`checks/determinacy.ts`); null before judge-6. */
  determinacy: { checked: number; determined: number; fromLists: number; identified: number; findings: number } | null;
  /** Unwaived exact findings about arguments, in stored order. */
  exactFindings: { turn: number; callIndex: number | null; param: string | null; sub: ArgumentSubdimension; kind: string; reason: string }[];
}

/**
 * Which view of a record a report row is. The paper's records (its Table 6: 337 scenarios gave
 * 391 records) are every scenario as a single-turn task plus the conversation of each scenario
 * that has one; a report row is one of those.
 */
export type RowKind = 'single-turn' | 'conversation';

/** What the analysis knows about one view of a record under one judge. */
export interface JudgedRow {
  server: string;
  record: HarnessRecord;
  kind: RowKind;
  /** The judgment of this view, when the judge has one. */
  view?: JudgmentView;
  /** The judge left an aspect of this view not judged (it failed; a note says why). */
  notJudged?: { tc: boolean; coh: boolean };
}

/** A row's identity across judges: the record and the view. */
export const rowKey = (r: JudgedRow): string => `${r.record.id}\u241f${r.kind}`;

/**
 * The judgments of a record's views. The judge stores the single-turn view at the top and the
 * conversation view under `conversation`; a judgment written before that (or by hand) whose
 * `judge.view` is `multi-turn` is the conversation's, and anything else the single-turn task's.
 */
export function judgmentViews(j: Judgment | undefined): Partial<Record<RowKind, Judgment>> {
  if (!j) return {};
  const loose = j as Record<string, unknown>;
  const nested = Judgment.safeParse(loose.conversation);
  if (nested.success) return { 'single-turn': j, conversation: nested.data };
  const judge = loose.judge;
  return isRecord(judge) && judge.view === 'multi-turn' ? { conversation: j } : { 'single-turn': j };
}

/** Whether a judgment says an aspect was not judged (`status.tc`/`status.coh` = `not-judged`). */
export function notJudgedOf(j: Judgment): { tc: boolean; coh: boolean } {
  const status = (j as Record<string, unknown>).status;
  return { tc: isRecord(status) && status.tc === 'not-judged', coh: isRecord(status) && status.coh === 'not-judged' };
}

/** The rows of one record under a judge: its single-turn task, and its conversation when it has one. */
export function rowsOfRecord(server: string, record: HarnessRecord, judgment: Judgment | undefined): JudgedRow[] {
  const views = judgmentViews(judgment);
  const kinds: RowKind[] = record.conversation.length >= 2 ? ['single-turn', 'conversation'] : ['single-turn'];
  return kinds.map((kind) => {
    const j = views[kind];
    return j ? { server, record, kind, view: readJudgment(j), notJudged: notJudgedOf(j) } : { server, record, kind };
  });
}

/** A finite number, `null` for an explicit null, `undefined` for anything else. */
function scoreOf(v: unknown): number | null | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (v === null) return null;
  if (isRecord(v) && (typeof v.score === 'number' || v.score === null)) return scoreOf(v.score);
  return undefined;
}

/** Leaves of a (possibly nested) score map as (namespace, key, score); `a.b` keys split like nesting. */
function leaves(value: unknown, ns: string[] = [], out: [string[], string, number | null][] = [], depth = 0): [string[], string, number | null][] {
  if (!isRecord(value) || depth > 4) return out;
  for (const [k, v] of Object.entries(value)) {
    const parts = k.split('.').map(normaliseKey);
    const key = parts.pop() ?? '';
    const path = [...ns, ...parts];
    const s = scoreOf(v);
    if (s !== undefined) out.push([path, key, s]);
    else if (isRecord(v)) leaves(v, [...path, key], out, depth + 1);
  }
  return out;
}

/** 0–1; a sub-score left on the judge's 0–10 scale is read as such. */
const unit = (v: number): number => (v > 1 ? Math.min(1, v / 10) : Math.max(0, v));

function readDims(map: unknown): DimensionScores {
  const dims: DimensionScores = { usage: null, selection: null, ordering: null, arguments: null };
  for (const [ns, key, s] of leaves(map)) {
    const d = ns.length === 0 ? DIMENSION_ALIASES[key] : undefined;
    if (d && s !== null) dims[d] = unit(s);
  }
  return dims;
}

const hasAny = (d: DimensionScores): boolean => TC_DIMENSIONS.some((k) => d[k] !== null);

function readArgs(map: unknown): Record<ArgumentSubdimension, number | null> {
  const acc = new Map<ArgumentSubdimension, number[]>();
  for (const [ns, key, s] of leaves(map)) {
    const alias = ns.some((n) => ARGUMENT_NAMESPACES.has(n)) ? ARGUMENT_ALIASES[key] : undefined;
    const sub = alias && ARGUMENT_REPORT_KEYS[alias];
    if (!sub || s === null) continue;
    acc.set(sub, [...(acc.get(sub) ?? []), unit(s)]);
  }
  return Object.fromEntries(ARGUMENT_SUBDIMENSIONS.map((k) => [k, mean(acc.get(k) ?? [])])) as Record<ArgumentSubdimension, number | null>;
}

/**
 * Coherence aspects on the raw 1–3 scale: the judge stores raw / 3 (the paper's normalisation);
 * values above 1 are taken as raw. Judgments stored before that change ((raw − 1) / 2) are stale
 * by their input hash and are judged again by the next `judge` run.
 */
function readAspects(map: unknown): Record<CohAspect, number | null> {
  const out = Object.fromEntries(REPORT_ASPECT_ORDER.map((a) => [a, null])) as Record<CohAspect, number | null>;
  for (const [ns, key, s] of leaves(map)) {
    const aspect = ns.some((n) => COHERENCE_NAMESPACES.has(n)) ? ASPECT_ALIASES[key] : undefined;
    if (!aspect || s === null || out[aspect] !== null) continue;
    out[aspect] = s > 1 ? Math.min(3, s) : Math.min(3, Math.max(1, COH_SCALE_MAX * s));
  }
  return out;
}

/** Every manifestation code of Table 19 (the judge's vocabulary) plus the taxonomy's eval-artifact code, for codes cited in notes. */
const MANIFESTATION_CODES: readonly string[] = [...Object.values(COH_MANIFESTATIONS).flat(), 'no_shared_context'];

const CODE_IN_NOTE = new RegExp(`\\b(${MANIFESTATION_CODES.join('|')})\\b`, 'g');
const snake = (s: string): string =>
  s
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');

/** Strings of a manifestations value: an array of codes, or a map aspect → codes. */
function codesIn(value: unknown, out: string[], depth = 0): void {
  if (depth > 3) return;
  if (typeof value === 'string') {
    const code = snake(value);
    if (code && code.length <= 60) out.push(code);
  } else if (Array.isArray(value)) for (const v of value) codesIn(v, out, depth + 1);
  else if (isRecord(value)) for (const v of Object.values(value)) codesIn(v, out, depth + 1);
}

/**
 * Coherence issues of a judgment, one entry per mention. The record-level `manifestations` map
 * holds each code once per record (turns repeat it), so it is preferred; else the turns' maps;
 * else codes the notes cite verbatim (free text is matched only against the fixed codes).
 */
function readIssues(j: Judgment): string[] {
  const out: string[] = [];
  const loose = j as Record<string, unknown>;
  if (loose.manifestations !== undefined) codesIn(loose.manifestations, out);
  else if (Array.isArray(loose.turns)) for (const t of loose.turns) if (isRecord(t)) codesIn(t.manifestations, out);
  if (out.length === 0 && loose.manifestations === undefined) {
    for (const note of j.notes) for (const m of note.matchAll(CODE_IN_NOTE)) out.push(m[1] as string);
  }
  return out;
}

/** Per-turn dimension scores from `turns[].dimensions`; the record-level ones when there are none. */
function readTurns(j: Judgment, recordDims: DimensionScores): DimensionScores[] {
  const raw = (j as Record<string, unknown>).turns;
  const turns: DimensionScores[] = [];
  if (Array.isArray(raw)) {
    for (const t of raw) {
      if (!isRecord(t)) continue;
      const d = readDims(isRecord(t.dimensions) ? t.dimensions : t);
      if (hasAny(d)) turns.push(d);
    }
  }
  if (turns.length === 0 && hasAny(recordDims)) turns.push(recordDims);
  return turns;
}

const score01 = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : null);

const count = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined);

/** The grounding counts of a judgment, when it has all of them. */
function readGrounding(j: Judgment): JudgmentView['grounding'] {
  const g = (j as Record<string, unknown>).grounding;
  if (!isRecord(g)) return null;
  const keys = ['values', 'user', 'output', 'schema', 'none', 'findings'] as const;
  const out = Object.fromEntries(keys.map((k) => [k, count(g[k])]));
  return keys.every((k) => out[k] !== undefined) ? (out as NonNullable<JudgmentView['grounding']>) : null;
}

/** The determinacy counts of a judgment, when it has all of them. */
function readDeterminacy(j: Judgment): JudgmentView['determinacy'] {
  const d = (j as Record<string, unknown>).determinacy;
  if (!isRecord(d)) return null;
  const keys = ['checked', 'determined', 'fromLists', 'identified', 'findings'] as const;
  const out = Object.fromEntries(keys.map((k) => [k, count(d[k])]));
  return keys.every((k) => out[k] !== undefined) ? (out as NonNullable<JudgmentView['determinacy']>) : null;
}

/** The exact, unwaived argument findings of a judgment (`source: exact`, `arguments.<sub>`). */
function readExactFindings(j: Judgment): JudgmentView['exactFindings'] {
  const raw = (j as Record<string, unknown>).findings;
  // Oracle-mode findings point into an agent's calls, not the record's.
  const judge = (j as Record<string, unknown>).judge;
  if (!Array.isArray(raw) || (isRecord(judge) && judge.mode === 'oracle')) return [];
  const out: JudgmentView['exactFindings'] = [];
  for (const f of raw) {
    if (!isRecord(f) || f.source !== 'exact' || f.waived !== undefined || typeof f.subdimension !== 'string') continue;
    const [dim, key] = f.subdimension.split('.');
    const alias = dim === 'arguments' && key !== undefined ? ARGUMENT_ALIASES[normaliseKey(key)] : undefined;
    if (!alias) continue;
    out.push({
      turn: count(f.turn) ?? 0,
      callIndex: count(f.callIndex) ?? null,
      param: typeof f.param === 'string' ? f.param : null,
      sub: ARGUMENT_REPORT_KEYS[alias],
      kind: typeof f.kind === 'string' ? f.kind : 'other',
      reason: typeof f.reason === 'string' ? f.reason : '',
    });
  }
  return out;
}

/** Reads one judgment. */
export function readJudgment(j: Judgment): JudgmentView {
  const scores = judgmentScores(j);
  const dims = readDims(j.dimensions);
  return {
    tc: score01(scores.tc),
    coh: score01(scores.coh),
    exact: score01(scores.exact),
    dims,
    turns: readTurns(j, dims),
    args: readArgs(j.subdimensions),
    aspects: readAspects(j.subdimensions),
    issues: readIssues(j),
    exactArgs: readArgs((j as Record<string, unknown>).exactArguments),
    grounding: readGrounding(j),
    determinacy: readDeterminacy(j),
    exactFindings: readExactFindings(j),
  };
}

/**
 * Every judge id used in the records: judges with the most TC scores first, then the most
 * judgments, then by id. The first is the report's primary judge, so an LLM judge that scores TC
 * comes before the offline judge (which scores only exact checks) when both judged everything.
 */
export function judgeIdsOf(records: readonly HarnessRecord[]): string[] {
  const count = new Map<string, { tc: number; all: number }>();
  for (const r of records) {
    for (const [id, j] of Object.entries(r.judgments ?? {})) {
      const c = count.get(id) ?? { tc: 0, all: 0 };
      c.all++;
      if (typeof j.tc === 'number') c.tc++;
      count.set(id, c);
    }
  }
  return [...count].sort((a, b) => b[1].tc - a[1].tc || b[1].all - a[1].all || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([id]) => id);
}

/** The Table 10 taxonomy: issue group → the Table 19 manifestation codes grouped under it. */
export const ISSUE_GROUPS: readonly { group: string; codes: readonly string[] }[] = [
  { group: 'Missing info / shallow response', codes: ['cuts_off', 'partial_answer', 'too_shallow', 'missing_key_info', 'no_actionable_advice'] },
  { group: 'Off-topic or wrong focus', codes: ['misses_main_point', 'too_generic', 'wrong_question', 'complete_topic_shift'] },
  { group: 'Non-sequitur or topic shift', codes: ['non_sequitur', 'topic_shift', 'poor_transitions', 'breaks_causality', 'temporal_confusion'] },
  { group: 'Self-contradiction / hallucination', codes: ['contradicts_self', 'hallucination'] },
  { group: 'Ignores user constraints', codes: ['ignores_constraints', 'ignores_corrections'] },
  { group: 'No shared context (eval artifact)', codes: ['no_shared_context'] },
  { group: 'Unnecessary elaboration', codes: ['repeats_directly', 'rephrases_same_point', 'too_much_fluff', 'over_explains', 'excessive_caution'] },
  { group: 'Lost thread / forgot prior info', codes: ['loses_thread', 'asks_again', 'forgets_preferences', 'pronoun_confusion'] },
];

/** Group label for codes outside the taxonomy. */
export const OTHER_ISSUE_GROUP = 'Other';

const GROUP_OF = new Map(ISSUE_GROUPS.flatMap((g) => g.codes.map((c) => [c, g.group] as const)));

/** The Table 10 group of a manifestation code. */
export function issueGroupOf(code: string): string {
  return GROUP_OF.get(code) ?? OTHER_ISSUE_GROUP;
}
