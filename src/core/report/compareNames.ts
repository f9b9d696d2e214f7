/**
 * How the comparison (`compare.ts`) names scores and scenarios in texts: the diff's Markdown, its
 * gate lines and the report's "Since the previous report" section. Apart from `compare.ts` and
 * importing nothing (its types are structural), so the report page's script can use it without
 * bundling zod or the checks.
 */

/** How a score is named in `worse`/`better` and in the texts: the conversation view's with its view. */
export const scoreLabel = (c: { score: string; view: 'single-turn' | 'conversation' }): string =>
  c.view === 'conversation' ? `conversation ${c.score}` : c.score;

/** A scenario's name in lines: its id, or `old → new` when the pairing changed it. */
export const scenarioName = (s: { idA: string | null; idB: string | null }): string =>
  s.idA === s.idB || s.idB === null ? (s.idA ?? '') : s.idA === null ? s.idB : `${s.idA} → ${s.idB}`;
