/**
 * The comparison of two sets of scenarios, one home for `agent-seer diff` (two harness folders,
 * two agent runs: `diff.ts`) and the report's "Since the previous report" section (two report
 * JSONs: `since.ts`). A scenario is a {@link ScenarioSnapshot}: its scores under one judge, view
 * by view (the single-turn task and, when the scenario has one, the conversation, which the
 * judge scores as a record of its own), its verdict and why it fails. Scenarios are paired by id,
 * then by title; per pair and per score and view: the change and which way it went. Pure.
 */
import { z } from 'zod';
import type { ScenarioScore } from '../agents/score';
import { judgmentScores, type HarnessRecord } from '../harness/format';
import type { SpecDiff } from '../harness/specDiff';
import type { StoredViewJudgment } from '../judge/schemas';
import { recordVerdict, storedJudgments } from '../judge/verdict';
import type { Spec } from '../spec/model';
import { byCodeUnit } from '../util/byCodeUnit';
import { scenarioName, scoreLabel } from './compareNames';

export { scenarioName, scoreLabel } from './compareNames';

/** The scores compared, in the order they are listed. */
export const SCORE_NAMES = ['callScore', 'tc', 'coh', 'exact', 'determined', 'determinacyFindings'] as const;
export type ScoreName = (typeof SCORE_NAMES)[number];

/** Score names that are shares in 0–1 (a drop of these is what `--fail-on-regression` measures). */
export const SHARE_SCORES: ReadonlySet<string> = new Set<ScoreName>(['tc', 'coh', 'exact', 'determined', 'callScore']);

/** The views of a scenario a judge scores. */
export const DiffView = z
  .enum(['single-turn', 'conversation'])
  .describe("single-turn: the record's task (an agent run's only view); conversation: the multi-turn view of a scenario that has one, judged apart.");
export type DiffView = z.infer<typeof DiffView>;

/** Which way a score moved. Scores are 0–1, higher better, except `determinacyFindings` (a count, lower better). */
const Direction = z.enum(['worse', 'better', 'same', 'unscored']);

/** One score of one view of one scenario, before and after. */
export const ScoreChange = z.object({
  score: z
    .enum(SCORE_NAMES)
    .describe(
      "tc, coh: an LLM judge's scores (0–1); exact: the exact argument score (0–1); determined: share of the grounded argument values the user's words and the outputs pin down (judgments' determinacy.determined / checked); determinacyFindings: count of determinacy findings (lower is better); callScore: an agent run's headline call score (0–1).",
    ),
  view: DiffView,
  before: z.number().nullable().describe('Before (A, the previous report); null when not scored there.'),
  after: z.number().nullable().describe('After (B, this report); null when not scored there.'),
  delta: z.number().nullable().describe('after − before; null when either is missing.'),
  direction: Direction,
});
export type ScoreChange = z.infer<typeof ScoreChange>;

/** A pass/fail verdict. */
export const Verdict = z
  .enum(['pass', 'fail', 'stale', 'not-judged'])
  .describe('pass/fail as the editor shows it (judge/verdict.ts; for runs agents/score.ts `passed`); stale: a judgment older than its record or spec.');

/** One scenario before, after, or both. */
export const ScenarioDiff = z.object({
  status: z.enum(['matched', 'new', 'vanished']).describe('matched: in both; new: only after (B); vanished: only before (A).'),
  matchedBy: z.enum(['id', 'title']).nullable().describe('How a matched scenario was paired: by record id, else by its (unique) title; null when not matched.'),
  idA: z.string().nullable(),
  idB: z.string().nullable(),
  title: z.string(),
  scores: z.array(ScoreChange),
  verdict: z.object({ before: Verdict.nullable(), after: Verdict.nullable() }),
  worse: z
    .array(z.string())
    .describe('What got worse: score names (prefixed "conversation " for the conversation view), and "verdict" when a passing scenario now fails.'),
  better: z.array(z.string()).describe('What got better, in the same terms.'),
  largestDrop: z.number().describe('The largest drop of a 0–1 score, over views (0 when none dropped).'),
  failures: z.array(z.string()).describe("Why the scenario fails after: the verdict's reasons for a record, the failing calls for a run."),
  toolsChanged: z.array(z.string()).describe('Tools the scenario calls whose definition changed or that were removed between the specs.'),
});
export type ScenarioDiff = z.infer<typeof ScenarioDiff>;

/** The scores of one view of a scenario (a score the judge did not give is absent or null). */
export const ViewScores = z.object(
  Object.fromEntries(SCORE_NAMES.map((s) => [s, z.number().nullable().optional()])) as Record<ScoreName, z.ZodOptional<z.ZodNullable<z.ZodNumber>>>,
);
export type ViewScores = z.infer<typeof ViewScores>;

/** A scenario as compared: what a harness record or an agent's scenario run says under one judge. */
export const ScenarioSnapshot = z.object({
  id: z.string().describe('Record id.'),
  title: z.string(),
  tools: z.array(z.string()).describe('The tools its expected calls use.'),
  toolHashes: z.record(z.string(), z.string()).describe("Hash of each tool's definition when the record was made (provenance.toolHashes)."),
  scores: ViewScores.describe('The single-turn view (for an agent run, its call score).'),
  conversation: ViewScores.nullable().describe('The conversation view; null when the scenario has none or the judge did not score it.'),
  verdict: Verdict,
  failures: z.array(z.string()).describe("Why it fails: the verdict's reasons for a record, the failing calls for a run; empty when it passes."),
});
export type ScenarioSnapshot = z.infer<typeof ScenarioSnapshot>;

/** A view judgment's scores: TC and Coh (an LLM judge's), exact, and determinacy. */
function viewScores(j: StoredViewJudgment | undefined, loose: Parameters<typeof judgmentScores>[0] | undefined): ViewScores {
  const s = loose ? judgmentScores(loose) : { tc: null, coh: null, exact: null };
  const d = j?.determinacy;
  return { tc: s.tc, coh: s.coh, exact: s.exact, determined: d && d.checked > 0 ? d.determined / d.checked : null, determinacyFindings: d ? d.findings : null };
}

const toolsOf = (record: HarnessRecord): string[] => [...new Set(record.expected_tools.map((c) => c.name))];

/** A harness record under `judge` (null: verdict only), against `spec` when known (else its stored checks). */
export function recordSnapshot(record: HarnessRecord, spec: Spec | undefined, judge: string | null): ScenarioSnapshot {
  const v = recordVerdict(record, spec ? { spec } : {});
  const loose = judge === null ? undefined : record.judgments?.[judge];
  const stored = judge === null ? undefined : storedJudgments(record).find(([id]) => id === judge)?.[1];
  const conv = stored?.conversation;
  return {
    id: record.id,
    title: record.title,
    tools: toolsOf(record),
    toolHashes: record.provenance.toolHashes,
    scores: loose ? viewScores(stored, loose) : {},
    conversation: conv ? viewScores(conv, conv) : null,
    verdict: v.state,
    failures: v.state === 'fail' ? v.failures : [],
  };
}

/** One line per expected call an agent got wrong or missed, and one per call nobody asked for. */
function failingCalls(score: ScenarioScore): string[] {
  const out: string[] = [];
  score.calls.forEach((c, i) => {
    if (c.exact) return;
    if (!c.actual) return void out.push(`call ${i} ${c.expected.name}: not made`);
    const wrong = Object.entries(c.arguments)
      .filter(([, v]) => v !== 'ok')
      .map(([k, v]) => `${k} ${v}`);
    out.push(
      `call ${i} ${c.expected.name}: ${c.malformed ? 'malformed arguments' : wrong.length ? wrong.join(', ') : c.order ? `made ${c.order}` : 'refused'}`,
    );
  });
  for (const e of score.extraCalls) out.push(`extra call ${e.name}`);
  return out;
}

/** An agent's run of a scenario: its call score and pass/fail. */
export function runSnapshot(record: HarnessRecord, score: ScenarioScore): ScenarioSnapshot {
  return {
    id: record.id,
    title: record.title,
    tools: toolsOf(record),
    toolHashes: record.provenance.toolHashes,
    scores: { callScore: score.callScore },
    conversation: null,
    verdict: score.passed ? 'pass' : 'fail',
    failures: score.passed ? [] : failingCalls(score),
  };
}

/**
 * Pairs A's scenarios with B's: by id first; then those left over, by title when exactly one
 * scenario on each side has it (two scenarios of one title are not guessed between).
 */
export function pairScenarios<T extends { id: string; title: string }>(
  a: readonly T[],
  b: readonly T[],
): { pairs: { a: T; b: T; by: 'id' | 'title' }[]; onlyA: T[]; onlyB: T[] } {
  const bById = new Map(b.map((s) => [s.id, s]));
  const pairs: { a: T; b: T; by: 'id' | 'title' }[] = [];
  const leftA: T[] = [];
  const usedB = new Set<string>();
  for (const s of a) {
    const other = bById.get(s.id);
    if (other) {
      pairs.push({ a: s, b: other, by: 'id' });
      usedB.add(other.id);
    } else leftA.push(s);
  }
  const leftB = b.filter((s) => !usedB.has(s.id));
  const byTitle = <U extends { title: string }>(list: readonly U[]): Map<string, U[]> => {
    const m = new Map<string, U[]>();
    for (const s of list) m.set(s.title.trim().toLowerCase(), [...(m.get(s.title.trim().toLowerCase()) ?? []), s]);
    return m;
  };
  const titlesA = byTitle(leftA);
  const titlesB = byTitle(leftB);
  const paired = new Set<string>();
  for (const [title, as] of titlesA) {
    const bs = titlesB.get(title);
    if (as.length === 1 && bs?.length === 1) {
      pairs.push({ a: as[0]!, b: bs[0]!, by: 'title' });
      paired.add(as[0]!.id);
      paired.add(`\u0000${bs[0]!.id}`);
    }
  }
  return { pairs, onlyA: leftA.filter((s) => !paired.has(s.id)), onlyB: leftB.filter((s) => !paired.has(`\u0000${s.id}`)) };
}

/** Deltas smaller than this are rounding, not change. */
export const EPSILON = 1e-9;

function viewChanges(view: DiffView, a: ViewScores | null | undefined, b: ViewScores | null | undefined): ScoreChange[] {
  // A score neither side has (TC and Coh under the offline judge) is left out, not listed as unscored.
  const names = SCORE_NAMES.filter((s) => (a?.[s] ?? null) !== null || (b?.[s] ?? null) !== null);
  return names.map((score) => {
    const before = a?.[score] ?? null;
    const after = b?.[score] ?? null;
    const delta = before !== null && after !== null ? after - before : null;
    const higherBetter = score !== 'determinacyFindings';
    const direction = delta === null ? 'unscored' : Math.abs(delta) < EPSILON ? 'same' : delta > 0 === higherBetter ? 'better' : 'worse';
    return { score, view, before, after, delta, direction };
  });
}

/** Tools a scenario calls that changed or were removed from A's spec to B's. */
function changedTools(a: ScenarioSnapshot | undefined, b: ScenarioSnapshot | undefined, spec: SpecDiff | null): string[] {
  const tools = [...new Set([...(a?.tools ?? []), ...(b?.tools ?? [])])];
  if (spec) {
    const touched = new Set([...spec.removed, ...spec.changed.map((c) => c.name)]);
    return tools.filter((t) => touched.has(t)).sort(byCodeUnit);
  }
  if (!a || !b) return [];
  return tools.filter((t) => a.toolHashes[t] !== undefined && b.toolHashes[t] !== undefined && a.toolHashes[t] !== b.toolHashes[t]).sort(byCodeUnit);
}

function scenarioDiff(a: ScenarioSnapshot | undefined, b: ScenarioSnapshot | undefined, matchedBy: 'id' | 'title' | null, spec: SpecDiff | null): ScenarioDiff {
  const changes = [...viewChanges('single-turn', a?.scores, b?.scores), ...viewChanges('conversation', a?.conversation, b?.conversation)];
  const scores = a && b ? changes : changes.map((s) => ({ ...s, direction: 'unscored' as const }));
  const worse = scores.filter((s) => s.direction === 'worse').map(scoreLabel);
  const better = scores.filter((s) => s.direction === 'better').map(scoreLabel);
  if (a && b) {
    if (a.verdict === 'pass' && b.verdict === 'fail') worse.push('verdict');
    if (a.verdict === 'fail' && b.verdict === 'pass') better.push('verdict');
  }
  const drops = scores.filter((s) => SHARE_SCORES.has(s.score) && s.delta !== null && s.delta < 0).map((s) => -s.delta!);
  return {
    status: a && b ? 'matched' : b ? 'new' : 'vanished',
    matchedBy,
    idA: a?.id ?? null,
    idB: b?.id ?? null,
    title: (b ?? a)!.title,
    scores,
    verdict: { before: a?.verdict ?? null, after: b?.verdict ?? null },
    worse,
    better,
    largestDrop: drops.length ? Math.max(...drops) : 0,
    failures: b?.failures ?? [],
    toolsChanged: changedTools(a, b, spec),
  };
}

/** How bad a matched scenario's change is, for the ordering: a pass turned fail first, then by its largest drop. */
const severity = (s: ScenarioDiff): number => (s.worse.includes('verdict') ? 1 : 0) + s.largestDrop + (s.worse.length ? 1e-6 : 0);

/** What {@link compareScenarios} found, with its counts. */
export interface Comparison {
  counts: { matchedById: number; matchedByTitle: number; new: number; vanished: number; worse: number; better: number; unchanged: number };
  /** Paired scenarios that changed or were paired by title, worst regressions first; then new, then vanished ones. */
  scenarios: ScenarioDiff[];
}

/** Compares two sets of scenarios (A before, B after); `spec` names the tools that changed between them, when known. */
export function compareScenarios(a: readonly ScenarioSnapshot[], b: readonly ScenarioSnapshot[], spec: SpecDiff | null): Comparison {
  const { pairs, onlyA, onlyB } = pairScenarios(a, b);
  const matched = pairs.map((p) => scenarioDiff(p.a, p.b, p.by, spec));
  const changed = matched.filter((s) => s.worse.length || s.better.length || s.matchedBy === 'title');
  changed.sort((x, y) => severity(y) - severity(x) || y.worse.length - x.worse.length || byCodeUnit(x.idA ?? '', y.idA ?? ''));
  const added = onlyB.map((s) => scenarioDiff(undefined, s, null, spec)).sort((x, y) => byCodeUnit(x.idB ?? '', y.idB ?? ''));
  const vanished = onlyA.map((s) => scenarioDiff(s, undefined, null, spec)).sort((x, y) => byCodeUnit(x.idA ?? '', y.idA ?? ''));
  return {
    counts: {
      matchedById: pairs.filter((p) => p.by === 'id').length,
      matchedByTitle: pairs.filter((p) => p.by === 'title').length,
      new: added.length,
      vanished: vanished.length,
      worse: matched.filter((s) => s.worse.length).length,
      better: matched.filter((s) => s.better.length && !s.worse.length).length,
      unchanged: matched.filter((s) => !s.worse.length && !s.better.length).length,
    },
    scenarios: [...changed, ...added, ...vanished],
  };
}

/** What `--fail-on-regression X` found: the regressions over the bar, one line each, and the one line a CI log shows. */
export interface RegressionGate {
  failed: boolean;
  /** One line: which bar failed and by how much (or that it held). */
  line: string;
  /** One line per scenario over the bar. */
  offenders: string[];
}

const f2 = (n: number): string => n.toFixed(2);

/** The gate: fails when any matched scenario's 0–1 score (any view) dropped by more than `x`, or a passing scenario now fails. */
export function regressionGate(scenarios: readonly ScenarioDiff[], x: number): RegressionGate {
  const offenders: string[] = [];
  let worst: { s: ScenarioDiff; c: ScoreChange } | undefined;
  for (const s of scenarios) {
    if (s.status !== 'matched') continue;
    const reasons: string[] = [];
    for (const c of s.scores) {
      if (!SHARE_SCORES.has(c.score) || c.delta === null || -c.delta <= x + EPSILON) continue;
      reasons.push(`${scoreLabel(c)} ${f2(c.before!)} → ${f2(c.after!)} (−${f2(-c.delta)})`);
      if (!worst || c.delta < worst.c.delta!) worst = { s, c };
    }
    if (s.worse.includes('verdict')) reasons.push('passed, now fails');
    if (reasons.length) offenders.push(`${scenarioName(s)}: ${reasons.join(', ')}`);
  }
  const nowFail = scenarios.filter((s) => s.worse.includes('verdict'));
  if (!offenders.length)
    return { failed: false, line: `--fail-on-regression ${x}: no scenario dropped by more than ${x} and no passing scenario fails`, offenders };
  const parts: string[] = [];
  if (worst)
    parts.push(
      `${scenarioName(worst.s)} ${scoreLabel(worst.c)} dropped by ${f2(-worst.c.delta!)} (${f2(worst.c.before!)} → ${f2(worst.c.after!)}), more than ${x}`,
    );
  if (nowFail.length)
    parts.push(
      `${nowFail.length} passing scenario${nowFail.length === 1 ? '' : 's'} now fail${nowFail.length === 1 ? 's' : ''} (${nowFail.slice(0, 3).map(scenarioName).join(', ')}${nowFail.length > 3 ? ', …' : ''})`,
    );
  return {
    failed: true,
    line: `--fail-on-regression ${x} failed: ${offenders.length} scenario${offenders.length === 1 ? '' : 's'} regressed; ${parts.join('; ')}`,
    offenders,
  };
}
