/**
 * What the exact argument score covers and what it cannot see. Said wherever the score is shown
 * (the report's tables and headline, the judge command's summary), so a figure such as
 * "exact 1.000" is never read as the quality of a harness: a harness can pass every exact check
 * and still be unrealistic, incoherent or ask for the wrong tool. One home for the wording; no
 * imports, so the report page's bundle and the CLI can both take it.
 */

/** What the exact checks decide, of the expected calls. */
export const EXACT_COVERS = 'argument completeness, names, value grounding, types, formats and relevancy of the expected calls';

/** What only an LLM judge can score. */
export const EXACT_CANNOT_SEE = 'the realism of the scenario, the coherence of the dialogue, or whether the right tool was chosen for the request';

/** The caveat in one sentence, for captions and summaries. */
export const EXACT_SCOPE = `Exact = a program's checks of ${EXACT_COVERS}; not a quality score: it cannot see ${EXACT_CANNOT_SEE}, which need an LLM judge (TC and Coh).`;

/**
 * A judge that was never asked for TC or coherence (the offline judge): no such score on any
 * row and none it failed on. An LLM judge that failed everywhere is not exact-only: its rows are
 * "unscored". Its report shows its exact figures only; it pairs with no judge for agreement.
 */
export function isExactOnly(corpus: { tc: { n: number }; coh: { n: number }; notJudged: { tc: number; coh: number } }): boolean {
  return corpus.tc.n === 0 && corpus.coh.n === 0 && corpus.notJudged.tc === 0 && corpus.notJudged.coh === 0;
}
