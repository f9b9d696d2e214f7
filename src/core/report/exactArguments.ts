/**
 * The exact judge's argument view of a server: the grounding rate, the mean exact sub-score per
 * argument sub-dimension, and the failing records with the argument at fault. Read from what the
 * judge stored (`exactArguments`, `grounding`, exact `findings`), so it fills in for the offline
 * judge and for an LLM judge alike, without a model. Pure.
 */
import { MAX_REPORT_FAILURES } from '../bounds';
import { DEFAULT_GEMINI_JUDGE_MODEL } from '../llm/gemini';
import { mean } from '../util/mean';
import { byCodeUnit } from '../util/byCodeUnit';
import { ARGUMENT_SUBDIMENSIONS, type ArgumentSubdimension } from '../vocabulary';
import { finite } from './common';
import type { JudgedRow, JudgmentView } from './judgments';
import type { DeterminacyTally, ExactArguments, ExactFailure, GroundingTally } from './schema';

/** Sums the grounding counts of the judgments. */
function tally(views: readonly JudgmentView[]): GroundingTally {
  const t = { values: 0, user: 0, output: 0, schema: 0, none: 0, findings: 0 };
  for (const v of views) {
    if (!v.grounding) continue;
    for (const k of Object.keys(t) as (keyof typeof t)[]) t[k] += v.grounding[k];
  }
  return { ...t, rate: t.values ? (t.values - t.none) / t.values : null };
}

/** Sums the determinacy counts of the judgments. */
function tallyDeterminacy(views: readonly JudgmentView[]): DeterminacyTally {
  const t = { checked: 0, determined: 0, fromLists: 0, identified: 0, findings: 0 };
  for (const v of views) {
    if (!v.determinacy) continue;
    for (const k of Object.keys(t) as (keyof typeof t)[]) t[k] += v.determinacy[k];
  }
  return { ...t, rate: t.checked ? t.determined / t.checked : null };
}

/** A judged row's exact findings, each at the argument at fault (the failures table and the worst scenarios). */
export function failuresOf(r: JudgedRow): ExactFailure[] {
  return (r.view?.exactFindings ?? []).map((f) => ({
    record: r.record.id,
    view: r.kind,
    call: f.callIndex,
    tool: f.callIndex === null ? null : (r.record.expected_tools[f.callIndex]?.name ?? null),
    param: f.param,
    subdimension: f.sub,
    kind: f.kind,
    reason: f.reason,
  }));
}

/** The exact argument view of some judged rows (one server, or all of them). */
export function exactArgumentsOf(rows: readonly JudgedRow[]): ExactArguments {
  const judged = rows.filter((r): r is JudgedRow & { view: JudgmentView } => r.view !== undefined);
  const scored = judged.filter((r) => ARGUMENT_SUBDIMENSIONS.some((k) => r.view.exactArgs[k] !== null));
  const means = Object.fromEntries(
    ARGUMENT_SUBDIMENSIONS.map((k) => [k, finite(mean(scored.map((r) => r.view.exactArgs[k]).filter((x): x is number => x !== null)))]),
  ) as Record<ArgumentSubdimension, number | null>;
  const failures: ExactFailure[] = [];
  let failingRecords = 0;
  // By record, the single-turn view before the conversation (a stable sort keeps rowsOfRecord's order).
  for (const r of [...judged].sort((a, b) => byCodeUnit(a.record.id, b.record.id))) {
    if (r.view.exactFindings.length) failingRecords++;
    failures.push(...failuresOf(r));
  }
  return {
    records: scored.length,
    grounding: tally(judged.map((r) => r.view)),
    determinacy: tallyDeterminacy(judged.map((r) => r.view)),
    means,
    failingRecords,
    failures: failures.slice(0, MAX_REPORT_FAILURES),
    failuresLeftOut: Math.max(0, failures.length - MAX_REPORT_FAILURES),
  };
}

/**
 * What to run for model-judged TC and coherence, when a judge gave exact scores but no TC (the
 * offline judge); undefined otherwise.
 */
export function modelJudgeHint(judge: string | null, corpus: { tc: { n: number }; exact: { n: number } }): string | undefined {
  if (judge === null || corpus.tc.n > 0 || corpus.exact.n === 0) return undefined;
  return `Judge ${judge} scores exact argument checks only (labelled exact, not TC). For model-judged TC and coherence run: agent-seer judge HARNESS_DIR --judge gemini:${DEFAULT_GEMINI_JUDGE_MODEL} (or openai:MODEL), then report again.`;
}
