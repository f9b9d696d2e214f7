/**
 * Whether a prompt recites a tool description: seven or more consecutive words of it, compared
 * as lower-case letters and digits. A prompt that copies the spec's wording tests whether an
 * agent matches words, not whether it understands a request; the offline generator rephrases
 * such a clause, and the determinacy test holds every harness to at most 5% of such prompts.
 */

/** How many consecutive words count as a recitation. */
export const RECITED_WORDS = 7;

/** The words of each sentence of a text (a run never crosses `.`, `?`, `!`, `;` or a line break). */
const sentences = (text: string): string[][] =>
  text
    .toLowerCase()
    .split(/[.?!;\n]+(?:\s|$)/)
    .map((s) =>
      s
        .replace(/[^a-z0-9]+/g, ' ')
        .split(' ')
        .filter(Boolean),
    );

/** Every run of `RECITED_WORDS` consecutive words within a sentence of a text. */
function* runsOf(text: string): Generator<string> {
  for (const w of sentences(text)) for (let i = 0; i + RECITED_WORDS <= w.length; i++) yield w.slice(i, i + RECITED_WORDS).join(' ');
}

/** The runs of `RECITED_WORDS` consecutive words of some texts, for `recites`. */
export function wordRuns(texts: Iterable<string | undefined>): Set<string> {
  const runs = new Set<string>();
  for (const text of texts) for (const run of runsOf(text ?? '')) runs.add(run);
  return runs;
}

/** The first run of `RECITED_WORDS` words of `text` (within a sentence) that `runs` holds, or undefined. */
export function recites(text: string, runs: ReadonlySet<string>): string | undefined {
  for (const run of runsOf(text)) if (runs.has(run)) return run;
  return undefined;
}
