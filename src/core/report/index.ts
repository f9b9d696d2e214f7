/**
 * # Reports (`src/core/report`)
 *
 * The paper's Section 5 tables, Appendix A/B analyses and Appendix G figures for the user's own
 * harnesses, under one or several judges:
 * ```
 * analyzeHarnesses([{dir, manifest, records, spec?}…], {judges?, resamples?, seed?})   analyze.ts
 *   ├─ readJudgment        judgments.ts: a stored judgment → fixed numbers (spellings live here)
 *   ├─ stats               stats.ts: mean, sd, bootstrap CI, Pearson/Spearman + p, Gini, …
 *   └─ agreementOf         agreement.ts: two judges on the same records (Appendix A.8)
 *   → ReportModel          schema.ts (zod; published as schemas/report.schema.json)
 * renderMarkdown(model)                       render/markdown.ts  (tables from tables.ts: nothing empty is drawn;
 *                                                                 exact scores say what they cover, exactScope.ts)
 * renderHtml(model, {nonce?, cspSource?, script?, data?})   render/html.ts (page script: media/report/report.ts)
 * ```
 */
export * from './schema';
export * as stats from './stats';
export { analyzeHarnesses, availableJudges, UnknownJudgeError, type HarnessInput, type ReportOptions } from './analyze';
export { readJudgment, judgeIdsOf, ISSUE_GROUPS, issueGroupOf, type JudgmentView } from './judgments';
export { reportTables, headline, type ReportSection, type ReportTable } from './tables';
export { EXACT_SCOPE, EXACT_COVERS, EXACT_CANNOT_SEE, isExactOnly } from './exactScope';
export { renderMarkdown, escapeMarkdown } from './render/markdown';
export { renderHtml, loadReportScript, jsonForHtml, scriptForHtml, escapeHtml, type HtmlOptions, type ReportScript } from './render/html';
