/**
 * What a workspace folder holds: server definitions from config files and tool specs from
 * snapshot files, with their complexity profiles. Kept incrementally: a watcher reports a
 * changed path and only that file is read again. The editor side owns the watchers; this
 * module owns the logic, so it is tested without VS Code.
 */
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { HARNESS_SPEC_FILE, MANIFEST_FILE, RECORDS_DIR } from '../harness/layout';
import { analyzeSpec, type ComplexityThresholds, type ServerProfile } from '../complexity';
import { formatForPath, parseConfig } from '../spec/configs';
import type { ServerDefinition } from '../spec/configs/types';
import { detectWorkspace } from './detect';
import type { LoadProblem, Spec } from '../spec/model';
import { looksBinary } from '../spec/jsonText';
import { loadSpecText } from '../spec/snapshot';

/** A spec file found in the workspace, analysed. */
export interface IndexedSpec {
  file: string;
  spec: Spec;
  profile: ServerProfile;
}

/** Largest JSON file read as a possible spec (bigger ones are skipped as data). */
const MAX_SPEC_BYTES = 20 * 1024 * 1024;

/**
 * Whether a file is generated harness data — `<harness>/spec.json` (a copy of the spec) or
 * `<harness>/records/*.json` — in a folder with a manifest beside `records/`. Neither is a
 * workspace spec, and a generation run writes many records: they are dismissed without reading.
 */
async function isHarnessData(file: string): Promise<boolean> {
  const dir = dirname(file);
  const harness = basename(file) === HARNESS_SPEC_FILE ? dir : basename(dir) === RECORDS_DIR ? dirname(dir) : undefined;
  if (!harness) return false;
  try {
    await stat(join(harness, MANIFEST_FILE));
    return (await stat(join(harness, RECORDS_DIR))).isDirectory();
  } catch {
    return false;
  }
}

export class WorkspaceIndex {
  private readonly configs = new Map<string, { definitions: ServerDefinition[]; problems: LoadProblem[] }>();
  private readonly specs = new Map<string, IndexedSpec>();
  private readonly specProblems = new Map<string, LoadProblem>();

  constructor(
    readonly root: string,
    private thresholds: ComplexityThresholds,
  ) {}

  /** Full scan of the folder; replaces what was known. */
  async scan(signal?: AbortSignal): Promise<void> {
    const found = await detectWorkspace(this.root, signal ? { signal } : {});
    this.configs.clear();
    this.specs.clear();
    this.specProblems.clear();
    for (const def of found.definitions) {
      const entry = this.configs.get(def.file) ?? { definitions: [], problems: [] };
      entry.definitions.push(def);
      this.configs.set(def.file, entry);
    }
    for (const p of found.problems) {
      const entry = this.configs.get(p.file) ?? { definitions: [], problems: [] };
      entry.problems.push(p);
      this.configs.set(p.file, entry);
    }
    await Promise.all(found.specFiles.map((f) => this.updateFile(f)));
  }

  /** Re-reads one file after a change; a deleted file is forgotten. Returns whether anything changed. */
  async updateFile(file: string): Promise<boolean> {
    const rel = relative(this.root, file).split(sep).join('/');
    if (rel === '..' || rel.startsWith('../') || isAbsolute(rel)) return false; // outside the root (or, on Windows, on another drive)
    if (await isHarnessData(file)) return this.forget(file);
    let text: string | undefined;
    try {
      const s = await stat(file);
      if (s.isFile() && s.size <= MAX_SPEC_BYTES) text = await readFile(file, 'utf8');
    } catch {
      text = undefined;
    }
    if (text === undefined) return this.forget(file);
    return this.updateText(file, text, rel);
  }

  /** Applies a file's current text (from disk or an open editor). */
  updateText(file: string, text: string, rel = relative(this.root, file).split(sep).join('/')): boolean {
    const format = formatForPath(rel);
    if (format) {
      const result = parseConfig(text, file, format);
      this.configs.set(file, { definitions: result.definitions, problems: result.problems });
      return true;
    }
    if (!rel.toLowerCase().endsWith('.json') || looksBinary(text)) return this.forget(file);
    // Cheap filter before a full parse: a spec mentions "tools". A file already known as a spec
    // is parsed whatever it holds, so a half-edited one reports where it broke.
    const known = this.specs.has(file) || this.specProblems.has(file);
    if (!known && !text.includes('"tools"') && !text.trimStart().startsWith('[')) return this.forget(file);
    const load = loadSpecText(text, file);
    if (!load.ok) {
      if (load.notSpec) return this.forget(file);
      // Broken JSON: only a file we already knew as a spec keeps a problem entry (it is being edited).
      if (!known) return false;
      this.specs.delete(file);
      this.specProblems.set(file, load.problem);
      return true;
    }
    this.specProblems.delete(file);
    this.specs.set(file, { file, spec: load.spec, profile: analyzeSpec(load.spec, this.thresholds) });
    return true;
  }

  /** Removes a file (deleted, or no longer a config or spec). */
  forget(file: string): boolean {
    const had = this.configs.delete(file) || this.specs.delete(file);
    return this.specProblems.delete(file) || had;
  }

  /** New thresholds re-analyse every spec. */
  setThresholds(thresholds: ComplexityThresholds): void {
    this.thresholds = thresholds;
    for (const entry of this.specs.values()) entry.profile = analyzeSpec(entry.spec, thresholds);
  }

  get definitions(): ServerDefinition[] {
    return [...this.configs.values()].flatMap((c) => c.definitions).sort((a, b) => a.file.localeCompare(b.file) || a.name.localeCompare(b.name));
  }

  get specFiles(): IndexedSpec[] {
    return [...this.specs.values()].sort((a, b) => a.file.localeCompare(b.file));
  }

  get problems(): LoadProblem[] {
    return [...[...this.configs.values()].flatMap((c) => c.problems), ...this.specProblems.values()];
  }

  spec(file: string): IndexedSpec | undefined {
    return this.specs.get(file);
  }
}
