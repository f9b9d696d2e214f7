/**
 * The report's opening section: the scenarios to fix first, under the primary judge. Ranked by
 * TC when the judge scored TC (an LLM judge), else by the exact argument score, then by the
 * number of exact findings (more first), ties by record id; a scenario's score is the lowest of
 * its views (its single-turn task and its conversation), so a conversation that fails is not
 * hidden by a task that passes. Only failing scenarios (a score below 1 or a finding) are listed.
 */
import { byCodeUnit } from '../util/byCodeUnit';
import { recordFileStem } from '../harness/store';
import { failuresOf } from './exactArguments';
import { judgmentViews, type JudgedRow } from './judgments';
import type { WorstScenario, WorstScenarios } from './schema';

/** The most scenarios the section lists. */
export const MAX_WORST = 10;
const EPS = 1e-9;

/**
 * The worst scenarios of the primary judge's rows (one list per server, in server order).
 * `harnessLinks`: per server, its harness folder as seen from where the report is written (`.`
 * when it is written there), so each scenario links its record file from the report.
 */
export function worstScenariosOf(judge: string | null, rowsByServer: readonly (readonly JudgedRow[])[], harnessLinks?: readonly string[]): WorstScenarios {
  const rows = rowsByServer.flat();
  const linkOf = new Map<string, string>();
  rowsByServer.forEach((rs, i) => {
    const base = harnessLinks?.[i];
    if (base !== undefined) for (const r of rs) linkOf.set(r.server, base);
  });
  const by = rows.some((r) => typeof r.view?.tc === 'number') ? 'tc' : rows.some((r) => typeof r.view?.exact === 'number') ? 'exact' : null;
  if (judge === null || by === null) return { judge, by, failing: 0, scenarios: [] };
  const byRecord = new Map<string, JudgedRow[]>();
  for (const r of rows) {
    const key = `${r.server}\u241f${r.record.id}`;
    byRecord.set(key, [...(byRecord.get(key) ?? []), r]);
  }
  const all: WorstScenario[] = [];
  for (const views of byRecord.values()) {
    const first = views[0];
    if (!first) continue;
    const scores = views.map((r) => (by === 'tc' ? r.view?.tc : r.view?.exact)).filter((x): x is number => typeof x === 'number');
    const faults = views.flatMap(failuresOf);
    const score = scores.length ? Math.min(...scores) : null;
    if (!faults.length && (score === null || score >= 1 - EPS)) continue;
    // The rationale is an LLM judge's: an exact-only judge's notes repeat its findings.
    // Each note once: the single-turn and the conversation judgment often say the same.
    const notes = [
      ...new Set(
        by === 'tc'
          ? Object.values(judgmentViews(first.record.judgments?.[judge])).flatMap((j) =>
              Array.isArray(j?.notes) ? j.notes.filter((n) => typeof n === 'string') : [],
            )
          : [],
      ),
    ];
    const file = `records/${recordFileStem(first.record.id)}.json`;
    const base = linkOf.get(first.server);
    all.push({
      server: first.server,
      record: first.record.id,
      file,
      ...(base !== undefined ? { link: base === '.' || base === '' ? file : `${base.replace(/\/+$/, '')}/${file}` } : {}),
      title: first.record.title,
      score,
      findings: faults.length,
      notes,
      faults,
    });
  }
  all.sort(
    (a, b) => (a.score ?? Infinity) - (b.score ?? Infinity) || b.findings - a.findings || byCodeUnit(a.record, b.record) || byCodeUnit(a.server, b.server),
  );
  return { judge, by, failing: all.length, scenarios: all.slice(0, MAX_WORST) };
}
