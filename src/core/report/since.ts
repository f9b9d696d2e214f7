/**
 * "Since the previous report" (`report --previous OLD.json`): this report against the JSON an
 * earlier `report --format json` wrote. The corpus scores then and now under each report's
 * primary judge, and the scenarios that got worse or better, are new or vanished: the comparison
 * of `agent-seer diff` (`compare.ts`), on the scenarios each report lists. Pure.
 */
import { z } from 'zod';
import { compareScenarios } from './compare';
import { ReportModel, ReportScenario, SINCE_SCORES, type SinceReport } from './schema';

/**
 * What `--previous` reads of a report JSON: its version, its judges' corpus figures, and its
 * scenarios (a report written before reports listed them has none: then only the scores are compared).
 */
export const PreviousReport = ReportModel.pick({ reportVersion: true, judges: true }).extend({ scenarios: z.array(ReportScenario).optional() });
export type PreviousReport = z.infer<typeof PreviousReport>;

/** A previous report that cannot be used: one line for the user. */
export class PreviousReportError extends Error {
  override readonly name = 'PreviousReportError';
}

/** Parses the text of a previous report JSON; `label` names it in the error. */
export function parsePreviousReport(text: string, label: string): PreviousReport {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new PreviousReportError(`${label}: not JSON (${e instanceof Error ? e.message : String(e)}); --previous takes what report --format json writes`);
  }
  const parsed = PreviousReport.safeParse(json);
  if (!parsed.success) {
    const version = (json as { reportVersion?: unknown } | null)?.reportVersion;
    const issue = parsed.error.issues[0];
    throw new PreviousReportError(
      version !== undefined && issue?.path[0] === 'reportVersion'
        ? `${label}: a report JSON of another version (reportVersion ${JSON.stringify(version)}); regenerate it with this agent-seer`
        : `${label}: not a report JSON (${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid'}); --previous takes what report --format json writes`,
    );
  }
  return parsed.data;
}

type Judges = ReportModel['judges'];

/** The corpus figures of a report's primary judge. */
function corpusScores(judges: Judges): Record<(typeof SINCE_SCORES)[number], number | null> {
  const c = judges[0]?.corpus;
  return {
    tc: c?.tc.mean ?? null,
    coh: c?.coh.mean ?? null,
    exact: c?.exact.mean ?? null,
    determined: c?.exactArguments.determinacy.rate ?? null,
  };
}

/** This report (`current`) since the previous one; `label` is the previous file as given. */
export function sinceReport(previous: PreviousReport, current: Pick<ReportModel, 'judges' | 'scenarios'>, label: string): SinceReport {
  const before = corpusScores(previous.judges);
  const after = corpusScores(current.judges);
  const scores = SINCE_SCORES.filter((s) => before[s] !== null || after[s] !== null).map((score) => {
    const b = before[score];
    const a = after[score];
    return { score, before: b, after: a, delta: a !== null && b !== null ? a - b : null };
  });
  const judge = { before: previous.judges[0]?.judge ?? null, after: current.judges[0]?.judge ?? null };
  if (!previous.scenarios) return { previous: label, judge, scores, counts: null, scenarios: [] };
  const { counts, scenarios } = compareScenarios(previous.scenarios, current.scenarios, null);
  return { previous: label, judge, scores, counts, scenarios };
}
