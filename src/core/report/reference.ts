/**
 * The paper's reference ranges, from its Table 3 ("Unsupervised scores by MCP", seven MCP servers,
 * judge Gemini 2.5 Flash): the lowest and highest server mean of TC and of coherence. A server's
 * mean is cued below, within or above them. Carried over exactly; no imports, so the report
 * page's bundle can take it. The exact argument score has no range: the paper has no such score,
 * and an exact-only judge (offline) says nothing of quality (`exactScope.ts`).
 */

/** One score's range over the paper's seven servers. */
export interface ReferenceRange {
  low: number;
  lowServer: string;
  high: number;
  highServer: string;
}

/** The paper's Table 3: TC from Git (0.857) to Redis (0.966); Coh from Git (0.757) to Slack (0.938). */
export const PAPER_RANGES: { tc: ReferenceRange; coh: ReferenceRange } = {
  tc: { low: 0.857, lowServer: 'Git', high: 0.966, highServer: 'Redis' },
  coh: { low: 0.757, lowServer: 'Git', high: 0.938, highServer: 'Slack' },
};

/** Where a mean falls against a reference range. */
export type RangeCue = 'below' | 'within' | 'above';

/** The cue of a mean; null when there is no mean. Bounds are inclusive (a mean equal to the paper's lowest is within). */
export function rangeCue(mean: number | null | undefined, range: ReferenceRange): RangeCue | null {
  if (mean === null || mean === undefined || !Number.isFinite(mean)) return null;
  // To the 3 decimals shown: a mean printed as 0.857 is within, whatever its fourth decimal.
  const m = Math.round(mean * 1000) / 1000;
  return m < range.low ? 'below' : m > range.high ? 'above' : 'within';
}

/** The words said next to a cued score (Markdown and HTML alike: the cue is never colour alone). */
export const CUE_WORDS: Record<RangeCue, string> = {
  below: 'below paper range',
  within: 'within paper range',
  above: 'above paper range',
};

/** The reference ranges in one sentence, for the notes of the score tables. */
export const RANGES_NOTE =
  `Reference ranges: the paper's Table 3 (seven MCP servers, judge Gemini 2.5 Flash) has server means of TC from ${PAPER_RANGES.tc.low.toFixed(3)} (${PAPER_RANGES.tc.lowServer}) to ${PAPER_RANGES.tc.high.toFixed(3)} (${PAPER_RANGES.tc.highServer}) and of Coh from ${PAPER_RANGES.coh.low.toFixed(3)} (${PAPER_RANGES.coh.lowServer}) to ${PAPER_RANGES.coh.high.toFixed(3)} (${PAPER_RANGES.coh.highServer}); ` +
  'each server mean of TC and Coh is marked below, within or above that range (another judge scores on its own scale: read the cue as a pointer, not a verdict). The exact score has no reference range and no cue.';
