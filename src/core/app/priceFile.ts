/**
 * A price file named by a setting (the editor's `agentSeer.cost.pricesFile`): read bounded, parsed
 * and merged over the built-in table. Problems come back as one line naming the file.
 */
import { FileReadError, readBoundedFile } from '../boundedRead';
import { parsePriceOverride, type Prices } from '../llm/pricing';

/** The prices of `file` merged over the built-in ones, or a message `FILE: what`. */
export async function readPriceFile(file: string): Promise<{ ok: true; prices: Prices } | { ok: false; message: string }> {
  let text: string;
  try {
    text = await readBoundedFile(file);
  } catch (e) {
    return { ok: false, message: `${file}: ${e instanceof FileReadError ? e.message : String(e)}` };
  }
  const parsed = parsePriceOverride(text, file);
  return parsed.ok ? parsed : { ok: false, message: `${file}: ${parsed.message}` };
}
