import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { FileReadError, readBoundedFile } from '../core/boundedRead';
import { BUILT_IN, parsePriceOverride, type Prices } from '../core/llm/pricing';
import { UsageError } from './errors';

/** A whole-number option (`--name N`) in [`min`, `max`]; the fallback when absent. */
export function intOption(
  name: string,
  raw: string | undefined,
  fallback: number | undefined,
  min: number,
  max: number = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} takes a whole number ≥ ${min}, got "${raw}"`);
  if (n > max) throw new UsageError(`--${name} is at most ${max}, got "${raw}"`);
  return n;
}

/**
 * A path from the command line, resolved against `cwd`. A `file:` URL is refused rather than
 * taken as a relative path named `file:…` (which would read nothing, or write a folder `file:`).
 */
export function pathOption(what: string, raw: string, cwd: string): string {
  if (/^file:/i.test(raw)) throw new UsageError(`${what} ${raw}: a file: URL, not a path (give the path itself)`);
  return resolve(cwd, raw);
}

/** Reads a file named on the command line (bounded, regular files only); bad input is a one-line UsageError. */
export async function readInputFile(what: string, raw: string, cwd: string): Promise<{ file: string; text: string }> {
  const file = pathOption(what, raw, cwd);
  try {
    return { file, text: await readBoundedFile(file) };
  } catch (e) {
    throw new UsageError(`${raw}: ${e instanceof FileReadError ? e.message : String(e)}`);
  }
}

/** An output folder (`--out DIR`): refused when it exists and is not a folder. */
export async function outputFolderOption(flag: string, raw: string, cwd: string): Promise<string> {
  const dir = pathOption(flag, raw, cwd);
  const s = await stat(dir).catch(() => undefined);
  if (s && !s.isDirectory()) throw new UsageError(`${flag} ${raw}: exists and is not a folder`);
  return dir;
}

/** An output file (`--out FILE`): refused when it is a folder; its parent folders are created, as for any output. */
export async function outputFileOption(flag: string, raw: string, cwd: string): Promise<string> {
  const file = pathOption(flag, raw, cwd);
  const s = await stat(file).catch(() => undefined);
  if (s && !s.isFile()) throw new UsageError(`${flag} ${raw}: exists and is not a regular file`);
  try {
    await mkdir(dirname(file), { recursive: true });
  } catch (e) {
    throw new UsageError(`${flag} ${raw}: cannot create its folder (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  return file;
}

/**
 * A `PROVIDER[:MODEL]` option (`--judge`, `--agent`) for the model providers: `gemini` or
 * `openai`, the model after the first colon. `expected` is how the flag's help spells its forms.
 */
export function providerModelOption(flag: string, raw: string, expected: string): { provider: 'gemini' | 'openai'; model?: string } {
  const value = raw.trim();
  const colon = value.indexOf(':');
  const provider = colon < 0 ? value : value.slice(0, colon).trim();
  const model = colon < 0 ? undefined : value.slice(colon + 1).trim();
  if (provider !== 'gemini' && provider !== 'openai') throw new UsageError(`${flag} takes ${expected}, got "${raw}"`);
  if (model === '') throw new UsageError(`${flag} ${raw}: the model after ':' is empty`);
  // An OpenAI-compatible endpoint serves no model we could assume: the same for every flag (--judge, --agent, --user).
  if (provider === 'openai' && !model) throw new UsageError(`${flag} openai needs a model: openai:MODEL`);
  return { provider, ...(model ? { model } : {}) };
}

/** `--prices FILE`: a price table merged over the built-in one; the built-in table when absent. Bad file: one line naming it. */
export async function pricesOption(raw: string | undefined, cwd: string): Promise<Prices> {
  if (raw === undefined) return BUILT_IN;
  const { text } = await readInputFile('--prices', raw, cwd);
  const parsed = parsePriceOverride(text, raw);
  if (!parsed.ok) throw new UsageError(`${raw}: ${parsed.message}`);
  return parsed.prices;
}
