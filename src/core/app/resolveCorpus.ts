/**
 * Resolving the specs of a corpus run for both front ends: spec files and folders of spec files.
 *
 * A file named on its own must be a spec with tools: anything else is bad input, since the user
 * asked for it. A folder contributes every `*.json` directly in it that is a spec with tools; its
 * other files are skipped, each with why, so the user sees what was left out. MCP config files
 * are not taken: a config names its servers, and `--server` picks one, which is a single run.
 * Each spec's harness folder is named as a single run names it (`namesForSpecFile`); two specs
 * that would share a folder are refused, naming both files.
 */
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { FileReadError, readBoundedFile } from '../boundedRead';
import { MAX_CORPUS_SPECS } from '../bounds';
import { parseConfig } from '../spec/configs';
import type { LoadProblem, Spec } from '../spec/model';
import { loadSpecText } from '../spec/snapshot';
import { byCodeUnit } from '../util/byCodeUnit';
import { namesForSpecFile, type SpecFileContext } from './resolveSpec';

/** One spec of the corpus. */
export interface CorpusSpec {
  /** The spec file (absolute). */
  file: string;
  spec: Spec;
  /** The harness folder's name (inside the corpus's output folder). */
  harnessName: string;
}

/** A file of a folder that is not in the corpus, and why. */
export interface SkippedFile {
  file: string;
  reason: string;
}

export type CorpusResolution =
  | { ok: true; specs: CorpusSpec[]; skipped: SkippedFile[]; warnings: string[] }
  | {
      ok: false;
      problem: LoadProblem;
      /** Specs that would share a harness folder, every such pair at once (the earlier file first), so a front end can name them its way. */
      duplicates?: { harnessName: string; files: [string, string] }[];
    };

const CONFIG_REASON = 'an MCP config file, not a spec: a corpus takes spec files (generate one configured server alone with --server NAME)';

/** Why `text` of `file` is not a spec with tools, or its spec. */
function specOf(text: string, file: string): { ok: true; spec: Spec } | { ok: false; reason: string } {
  const load = loadSpecText(text, file);
  if (load.ok) return load.spec.tools.length ? load : { ok: false, reason: 'the spec has no tools' };
  if (load.notSpec && parseConfig(text, file).isConfig) return { ok: false, reason: CONFIG_REASON };
  return { ok: false, reason: load.problem.message };
}

async function readText(file: string): Promise<{ ok: true; text: string } | { ok: false; reason: string }> {
  try {
    return { ok: true, text: await readBoundedFile(file) };
  } catch (e) {
    return { ok: false, reason: e instanceof FileReadError ? e.message : String(e) };
  }
}

/**
 * The specs of `paths` (absolute; files and folders, in the order given, a folder's files by
 * name). Never throws for bad input: a named file that is not a spec with tools, a folder
 * without one, or two specs with one harness folder name come back as `problem`.
 */
export async function resolveCorpus(paths: readonly string[], context: SpecFileContext = {}): Promise<CorpusResolution> {
  const specs: CorpusSpec[] = [];
  const skipped: SkippedFile[] = [];
  const warnings: string[] = [];
  const seen = new Set<string>();
  const duplicates: { harnessName: string; files: [string, string] }[] = [];
  type Failure = Extract<CorpusResolution, { ok: false }>;
  const add = async (file: string, spec: Spec): Promise<Failure | undefined> => {
    const names = await namesForSpecFile(file, spec, context);
    warnings.push(...names.warnings);
    const clash = specs.find((s) => s.harnessName === names.harnessName);
    // Collected, not returned at once: the user sees every clash of a folder in one go.
    if (clash) duplicates.push({ harnessName: names.harnessName, files: [clash.file, file] });
    else specs.push({ file, spec, harnessName: names.harnessName });
    return specs.length > MAX_CORPUS_SPECS ? { ok: false, problem: { file, message: `more than ${MAX_CORPUS_SPECS} specs in one corpus` } } : undefined;
  };
  for (const raw of paths) {
    const path = resolve(raw);
    const isFolder = await stat(path).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isFolder) {
      if (seen.has(path)) continue;
      seen.add(path);
      const read = await readText(path);
      if (!read.ok) return { ok: false, problem: { file: path, message: read.reason } };
      const spec = specOf(read.text, path);
      if (!spec.ok) return { ok: false, problem: { file: path, message: spec.reason } };
      const failure = await add(path, spec.spec);
      if (failure) return failure;
      continue;
    }
    const before = specs.length + duplicates.length;
    let names: string[];
    try {
      names = (await readdir(path)).filter((n) => n.endsWith('.json')).sort(byCodeUnit);
    } catch (e) {
      return { ok: false, problem: { file: path, message: `cannot list the folder (${(e as NodeJS.ErrnoException).code ?? String(e)})` } };
    }
    for (const name of names) {
      const file = join(path, name);
      if (seen.has(file)) continue;
      seen.add(file);
      const read = await readText(file);
      const spec = read.ok ? specOf(read.text, file) : read;
      if (!spec.ok) {
        skipped.push({ file, reason: spec.reason });
        continue;
      }
      const failure = await add(file, spec.spec);
      if (failure) return failure;
    }
    if (specs.length + duplicates.length === before)
      return { ok: false, problem: { file: path, message: 'no spec with tools in this folder (*.json files directly in it)' } };
  }
  const first = duplicates[0];
  if (first)
    return {
      ok: false,
      problem: {
        file: first.files[1],
        message: `same harness folder "${first.harnessName}" as ${first.files[0]}${duplicates.length > 1 ? ` (and ${duplicates.length - 1} more such pairs)` : ''}`,
      },
      duplicates,
    };
  return { ok: true, specs, skipped, warnings };
}
