/**
 * A record's honest pass/fail for the editor: it fails when any exact check fails (the record's
 * own checks, recomputed against the current spec when there is one, and the exact findings of
 * its judgments) or when its headline score is under the threshold. A judgment is stale when
 * what it was computed from (the record's judged content, the spec, the judge) changed since:
 * its stored `inputHash` no longer matches. Pure; the trees and the scenario panel read it.
 */
import { computeChecks } from '../checks/recordChecks';
import { judgmentScores, type HarnessRecord, type RecordChecks } from '../harness/format';
import type { Spec } from '../spec/model';
import { subdimensionLabel } from '../vocabulary';
import { PASS_THRESHOLD } from '../workspace/defaults';
import { specHashOnce } from '../harness/hash';
import { judgmentInputHashOf } from './judgeRecord';
import { StoredJudgment } from './schemas';

/** What a record's icon says, in priority order: a failing exact check wins over a stale judgment. */
export type VerdictState = 'fail' | 'stale' | 'pass' | 'not-judged';

/** The headline score of a record: an LLM judge's TC when there is one, else the exact score. */
export interface HeadlineScore {
  label: string;
  value: number;
  judge: string;
}

/** A record's verdict. */
export interface RecordVerdict {
  state: VerdictState;
  /** One line per reason it fails (empty when it does not). */
  failures: string[];
  /** Judge ids whose judgment no longer matches the record or spec; null when that cannot be told (no spec). */
  staleJudges: string[] | null;
  score: HeadlineScore | undefined;
  /** The checks the verdict used: recomputed against the spec when given, else as stored. */
  checks: RecordChecks;
}

/** The score shown for a record: an LLM judge's TC when there is one, else the exact score. */
export function headlineScore(record: HarnessRecord): HeadlineScore | undefined {
  const entries = Object.entries(record.judgments ?? {}).map(([judge, j]) => ({ judge, ...judgmentScores(j) }));
  for (const { judge, tc, coh } of entries) {
    if (tc === null) continue;
    return { label: `TC ${tc.toFixed(2)}${coh === null ? '' : ` · Coh ${coh.toFixed(2)}`}`, value: tc, judge };
  }
  for (const { judge, exact } of entries) if (exact !== null) return { label: `exact ${exact.toFixed(2)}`, value: exact, judge };
  return undefined;
}

/** One line per failing exact check of a record's checks. */
export function checkFailures(checks: RecordChecks): string[] {
  const out: string[] = [];
  for (const tool of checks.unknownTools) out.push(`'${tool}' is not a tool of the spec`);
  for (const c of checks.callErrors) {
    for (const e of c.errors) if (e.kind !== 'unknown-tool') out.push(`call ${c.callIndex} '${c.name}': ${e.message}`);
  }
  for (const v of checks.integrityViolations) out.push(`call ${v.callIndex}: ${v.param} = ${JSON.stringify(v.value)} comes from no earlier output or prompt`);
  if (checks.mockOutputsValid === false || checks.outputErrors.length)
    for (const e of checks.outputErrors) out.push(`mock output ${e.callIndex}: ${e.message}`);
  for (const p of checks.turnProblems) out.push(`turns: ${p.message}`);
  return out;
}

/** The stored judgments that parse as full judgments, by judge id (older or foreign ones are left out). */
export function storedJudgments(record: HarnessRecord): [string, StoredJudgment][] {
  const out: [string, StoredJudgment][] = [];
  for (const [id, j] of Object.entries(record.judgments ?? {})) {
    const parsed = StoredJudgment.safeParse(j);
    if (parsed.success) out.push([id, parsed.data]);
  }
  return out;
}

/** Whether an unsupervised judgment was computed from this record and spec (oracle judgments depend on a trajectory: never stale here). */
export function isJudgmentStale(record: HarnessRecord, judgment: StoredJudgment, spec: Spec): boolean {
  if (judgment.judge.mode !== 'unsupervised') return false;
  const { id, promptVersions, temperature } = judgment.judge;
  return judgmentInputHashOf(record, specHashOnce(spec), { id, promptVersions, temperature, mode: 'unsupervised' }) !== judgment.inputHash;
}

/** The verdict of one record; `spec` (the spec in the workspace now) makes the checks and staleness current. */
export function recordVerdict(record: HarnessRecord, options: { spec?: Spec; threshold?: number } = {}): RecordVerdict {
  const threshold = options.threshold ?? PASS_THRESHOLD;
  const checks = options.spec ? computeChecks(options.spec, record) : record.checks;
  const current = checkFailures(checks);
  const judged = storedJudgments(record);
  const { spec } = options;
  const staleJudges = spec ? judged.filter(([, j]) => isJudgmentStale(record, j, spec)).map(([id]) => id) : null;
  const score = headlineScore(record);
  // What the (possibly outdated) judgments say: exact findings, then the score against the threshold.
  const judgedFailures: string[] = [];
  for (const [id, j] of judged) {
    for (const f of j.findings) {
      if (f.source !== 'exact' || f.waived || f.score >= 1) continue;
      const where = f.callIndex === null ? '' : `call ${f.callIndex}${f.param ? ` ${f.param}` : ''}: `;
      judgedFailures.push(`${where}${subdimensionLabel(f.subdimension)} ${f.score.toFixed(2)}: ${f.reason} (${id})`);
    }
  }
  if (score && score.value < threshold) judgedFailures.push(`${score.label} is under the pass threshold ${threshold} (${score.judge})`);
  // Exact findings repeat what current checks say; keep the judge's lines only when the checks are clean.
  const failures = current.length ? current : judgedFailures;
  let state: VerdictState;
  if (current.length) state = 'fail';
  else if (staleJudges?.length) state = 'stale';
  else if (judgedFailures.length) state = 'fail';
  else state = score ? 'pass' : 'not-judged';
  return { state, failures, staleJudges, score, checks };
}

/** Counts of verdict states (the aggregates on run, tier and category nodes). */
export type VerdictCounts = Record<VerdictState, number>;

/** Adds up verdict states. */
export function countVerdicts(states: Iterable<VerdictState>): VerdictCounts {
  const counts: VerdictCounts = { fail: 0, stale: 0, pass: 0, 'not-judged': 0 };
  for (const s of states) counts[s]++;
  return counts;
}

/**
 * "3 failed, 10 passed, 2 outdated, 5 not judged" (zero counts left out; "no records" for none).
 * A stale judgment is called "outdated" here so it is not taken for a record whose tools changed
 * in the spec (the trees' "stale").
 */
export function describeCounts(c: VerdictCounts): string {
  const parts = [
    c.fail ? `${c.fail} failed` : '',
    c.pass ? `${c.pass} passed` : '',
    c.stale ? `${c.stale} outdated` : '',
    c['not-judged'] ? `${c['not-judged']} not judged` : '',
  ].filter(Boolean);
  return parts.join(', ') || 'no records';
}
