/**
 * `inspect`'s findings for CI: placed in the spec files as the editor's diagnostics place them
 * (`lint.ts`: on the tool's name or the parameter's key; one finding per shared problem, the other
 * places as related locations), with the finding codes as SARIF rules. Pure but for nothing:
 * the caller reads the files.
 */
import { FINDING_CODES, type ClientId, type FindingCodeDoc, type Severity } from '../complexity';
import { lintSpecText } from '../lint';
import { ciLevel, type CiFinding, type SarifRule } from './sarif';

/** The SARIF rules of spec findings: every finding code, with its title, why it matters and the docs it rests on. */
export const INSPECT_SARIF_RULES: readonly SarifRule[] = Object.entries(FINDING_CODES).map(([id, d]) => {
  const doc = d as FindingCodeDoc;
  return { id, title: doc.title, description: doc.explanation, level: ciLevel(doc.severity), ...(doc.source ? { helpUri: doc.source } : {}) };
});

/** The findings of one spec file's text, placed in it (none when it is not a loadable spec). */
export function specCiFindings(text: string, file: string, clients: readonly ClientId[]): CiFinding[] {
  return lintSpecText(text, file, { clients }).diagnostics.map((d) => ({
    ruleId: d.code,
    level: ciLevel(d.severity),
    message: d.tool !== undefined ? `${d.tool}${d.param !== undefined ? `.${d.param}` : ''}: ${d.summary} ${explanationOf(d.code)}`.trim() : d.message,
    file,
    range: d.range,
    title: FINDING_CODES[d.code as keyof typeof FINDING_CODES]?.title ?? d.code,
    ...(d.related?.length ? { related: d.related.map((r) => ({ message: r.tool, range: r.range })) } : {}),
  }));
}

const explanationOf = (code: string): string => (FINDING_CODES as Record<string, FindingCodeDoc | undefined>)[code]?.explanation ?? '';

/** The severities `--fail-on` takes, and those each one fails on. */
export const FAIL_ON = { error: ['error'], warning: ['error', 'warning'] } as const satisfies Record<string, readonly Severity[]>;
export type FailOn = keyof typeof FAIL_ON;

/** `--fail-on warning failed: 2 errors and 3 warnings found (the bar is 0)`; undefined when none reaches the level. */
export function failOnLine(level: FailOn, severities: readonly Severity[]): string | undefined {
  const errors = severities.filter((s) => s === 'error').length;
  const warnings = severities.filter((s) => s === 'warning').length;
  const counted = level === 'error' ? errors : errors + warnings;
  if (!counted) return undefined;
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  const found = level === 'error' ? plural(errors, 'error') : `${plural(errors, 'error')} and ${plural(warnings, 'warning')}`;
  return `--fail-on ${level} failed: ${found} found, ${counted} over the bar of 0`;
}
