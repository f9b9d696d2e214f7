/**
 * A judged harness as CI reads it: one JUnit test case per record view (the single-turn task, and
 * the conversation of a scenario that has one, as the paper counts records), findings placed in
 * the record files for SARIF and GitHub annotations, and the figures the offline gates compare
 * (the exact score, the share of determined values). Read from the judgments stored in the
 * records, so it says what the editor's trees and diagnostics say. Pure.
 */
import { basename } from 'node:path';
import { computeChecks } from '../checks/recordChecks';
import type { HarnessRecord } from '../harness/format';
import { findingLocator } from '../judge/locate';
import { StoredJudgment, type StoredFinding, type StoredViewJudgment } from '../judge/schemas';
import { checkFailures } from '../judge/verdict';
import type { Spec } from '../spec/model';
import { mean } from '../util/mean';
import { FINDING_KINDS, subdimensionLabel } from '../vocabulary';
import { PASS_THRESHOLD } from '../workspace/defaults';
import type { JunitCase, JunitSuite } from './junit';
import type { CiFinding, SarifRule } from './sarif';

/** A judged harness as read back from its folder: records, the file of each, and each file's text. */
export interface JudgedHarness {
  dir: string;
  records: readonly HarnessRecord[];
  /** Record id → its file. */
  files: ReadonlyMap<string, string>;
  /** File → its text (for placing findings). */
  texts: ReadonlyMap<string, string>;
  /** The spec now: the record checks are recomputed against it, as the editor's verdict does. */
  spec?: Spec;
}

/** A finding at or below this score is an error, above it a warning (the editor's rule, `judge/locate.ts`). */
const ERROR_AT_OR_BELOW = 0.3;

/** What each finding kind means, for the SARIF rules (their ids are the kinds of `FINDING_KINDS`). */
const KIND_TEXT: Record<(typeof FINDING_KINDS)[number], string> = {
  ungrounded: 'An argument value comes from neither the user’s words, nor an earlier output, nor the parameter’s schema.',
  undetermined: 'An argument value the user’s words and the outputs shown do not pin down (or an output contradicts its call).',
  incorrect: 'An argument value is wrong for the request.',
  missing: 'A required argument or an expected call is missing.',
  misnamed: 'An argument name is not the schema’s.',
  extra: 'An argument or call that nothing asked for (e.g. a parameter the schema does not have).',
  wrong_type: 'An argument value of the wrong JSON type.',
  bad_format: 'An argument value that does not follow its declared format.',
  redundant: 'A call that repeats an earlier one for nothing.',
  wrong_tool: 'A call to a tool that does not do what the request asks.',
  order: 'Calls in an order their data dependencies forbid.',
  other: 'Any other problem the judge found with a call or its arguments.',
};

/** The SARIF rules of judge findings: one per finding kind. */
export const JUDGE_SARIF_RULES: readonly SarifRule[] = FINDING_KINDS.map((kind) => ({
  id: kind,
  title: `Judge finding: ${kind.replace(/_/g, ' ')}`,
  description: KIND_TEXT[kind],
  level: 'warning',
}));

const isKind = (k: string | undefined): k is (typeof FINDING_KINDS)[number] => (FINDING_KINDS as readonly string[]).includes(k ?? '');

/** The findings that count against a view: not set aside, below full marks. */
const failing = (fs: readonly StoredFinding[]): StoredFinding[] => fs.filter((f) => !f.waived && f.score < 1);

/** A stored judgment of `judgeId`, parsed; undefined when there is none or it is of an older format. */
function judgmentOf(record: HarnessRecord, judgeId: string): StoredJudgment | undefined {
  const parsed = StoredJudgment.safeParse(record.judgments?.[judgeId]);
  return parsed.success ? parsed.data : undefined;
}

/** The value an argument has in the record (`filter.ids.0` walks into it); undefined when it has none. */
function argumentValue(record: HarnessRecord, f: StoredFinding): unknown {
  if (f.callIndex === null || f.param === null) return undefined;
  let v: unknown = record.expected_tools[f.callIndex]?.arguments;
  const args = v as Record<string, unknown> | undefined;
  if (args && Object.hasOwn(args, f.param)) return args[f.param];
  for (const k of f.param.split('.')) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, k)) return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

/** `call 0 git_status, argument repo_path: argument value 0.00 (ungrounded): why [offline]`, then the value the record holds. */
function findingLines(record: HarnessRecord, f: StoredFinding, judgeId: string): string[] {
  const call = f.callIndex === null ? '' : `call ${f.callIndex} ${record.expected_tools[f.callIndex]?.name ?? '?'}`;
  const where = [call, f.param !== null ? `argument ${f.param}` : ''].filter(Boolean).join(', ');
  const what = `${subdimensionLabel(f.subdimension)} ${f.score.toFixed(2)}${f.kind ? ` (${f.kind})` : ''}`;
  const lines = [`${where ? `${where}: ` : ''}${what}: ${f.reason} [${judgeId}, ${f.source}]`];
  const actual = argumentValue(record, f);
  if (actual !== undefined) lines.push(`  actual (the record's value): ${JSON.stringify(actual)}`);
  return lines;
}

/** One view's test case under one judge. */
function viewCase(
  record: HarnessRecord,
  view: 'single-turn' | 'conversation',
  j: StoredViewJudgment | undefined,
  judgeId: string,
  checks: string[],
  classname: string,
): JunitCase {
  const name = `${record.id} (${view})`;
  if (!j) return { name, classname, skipped: `not judged by ${judgeId}` };
  if (j.status.tc === 'not-judged') return { name, classname, skipped: `${judgeId} could not judge it (see the record's notes)` };
  const exact = failing(j.findings).filter((f) => f.source === 'exact');
  const headline = j.tc ?? j.exact;
  const label = j.tc !== null ? 'TC' : 'exact score';
  const lines: string[] = [...checks.map((c) => `check: ${c}`)];
  for (const f of exact) lines.push(...findingLines(record, f, judgeId));
  const under = headline !== null && headline < PASS_THRESHOLD;
  if (under) lines.push(`${label} ${headline.toFixed(3)} is under the pass threshold ${PASS_THRESHOLD}`);
  if (!lines.length) return { name, classname };
  // The judge's own findings explain a low TC; they do not fail a view by themselves.
  if (under) for (const f of failing(j.findings).filter((x) => x.source === 'judge')) lines.push(...findingLines(record, f, judgeId));
  const first = lines[0] ?? '';
  const more = lines.filter((l) => !l.startsWith('  ')).length - 1;
  return {
    name,
    classname,
    failure: {
      message: `${first}${more > 0 ? ` (and ${more} more)` : ''}`,
      type: checks.length ? 'check' : (exact[0]?.kind ?? 'score'),
      body: [`prompt: ${view === 'single-turn' ? record.prompt : (record.conversation[0]?.prompt ?? record.prompt)}`, ...lines].join('\n'),
    },
  };
}

/**
 * One suite per judge, one case per record view. A view fails when an exact finding of its
 * judgment stands, when its headline score (TC, else the exact score) is under the pass threshold,
 * or (the single-turn view, which holds the record's calls) when a check of the record fails:
 * the rule of `judge/verdict.ts`, view by view. A view with no judgment is skipped.
 */
export function judgeJunitSuites(h: JudgedHarness, judgeIds: readonly string[]): JunitSuite[] {
  const harness = basename(h.dir) || h.dir;
  return judgeIds.map((judgeId) => {
    const cases: JunitCase[] = [];
    for (const record of h.records) {
      const j = judgmentOf(record, judgeId);
      if (j && j.judge.mode !== 'unsupervised') continue;
      const checks = checkFailures(h.spec ? computeChecks(h.spec, record) : record.checks);
      const classname = `${harness}.${record.tier}`;
      cases.push(viewCase(record, 'single-turn', j, judgeId, checks, classname));
      if (record.conversation.length >= 2) cases.push(viewCase(record, 'conversation', j ? (j.conversation ?? undefined) : undefined, judgeId, [], classname));
    }
    return { name: `${harness} judged by ${judgeId}`, cases, properties: { harness: h.dir, judge: judgeId, passThreshold: String(PASS_THRESHOLD) } };
  });
}

/** Every standing finding of the judges' judgments, placed in its record file (SARIF results, annotations). */
export function judgeCiFindings(h: JudgedHarness, judgeIds: readonly string[]): CiFinding[] {
  const out: CiFinding[] = [];
  for (const record of h.records) {
    const file = h.files.get(record.id);
    if (!file) continue;
    const locate = findingLocator(h.texts.get(file) ?? '');
    for (const judgeId of judgeIds) {
      const j = judgmentOf(record, judgeId);
      if (!j || j.judge.mode !== 'unsupervised') continue;
      const views: [string, StoredViewJudgment | undefined][] = [
        ['single-turn', j],
        ['conversation', j.conversation],
      ];
      for (const [view, v] of views) {
        for (const f of failing(v?.findings ?? [])) {
          const range = locate(f);
          out.push({
            ruleId: isKind(f.kind) ? f.kind : 'other',
            level: f.score <= ERROR_AT_OR_BELOW ? 'error' : 'warning',
            message: `${record.id} (${view}): ${findingLines(record, f, judgeId).join('\n')}`,
            file,
            ...(range ? { range } : {}),
            title: `${record.id}: ${subdimensionLabel(f.subdimension)}`,
          });
        }
      }
    }
  }
  return out;
}

/** Every view judgment of a judge in a harness (the conversation's as a view of its own). */
function viewsOf(records: readonly HarnessRecord[], judgeId: string): StoredViewJudgment[] {
  return records.flatMap((r) => {
    const j = judgmentOf(r, judgeId);
    return j ? (j.conversation ? [j, j.conversation] : [j]) : [];
  });
}

/** The judge's mean exact score over views (as `judge` prints it); null when it has none. */
export function meanExactScore(records: readonly HarnessRecord[], judgeId: string): number | null {
  return mean(viewsOf(records, judgeId).flatMap((v) => (v.exact === null ? [] : [v.exact])));
}

/** The share of checked values that are determined, over the judge's views; null when none was checked. */
export function determinacyRate(records: readonly HarnessRecord[], judgeId: string): number | null {
  let checked = 0;
  let determined = 0;
  for (const v of viewsOf(records, judgeId)) {
    if (!v.determinacy) continue;
    checked += v.determinacy.checked;
    determined += v.determinacy.determined;
  }
  return checked ? determined / checked : null;
}
