/**
 * Finding what a workspace folder holds: MCP server definitions in every recognised config file,
 * and tool-spec snapshot files among its JSON. Built for big trees: heavy folders are skipped,
 * file system calls run concurrently under a bound, and a JSON file is only parsed when its
 * first bytes say it may be a spec (or a generic `mcpServers` config).
 */
import { close, fstat, open, read, readdir, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { HARNESS_SPEC_FILE, MANIFEST_FILE, RECORDS_DIR } from '../harness/layout';
import { formatForPath, parseConfig } from '../spec/configs';
import type { ServerDefinition } from '../spec/configs/types';
import { parseJsonText } from '../spec/jsonText';
import type { LoadProblem } from '../spec/model';
import { isSpecShaped } from '../spec/snapshot';
import { byCodeUnit } from '../util/byCodeUnit';

/** Folders never walked: dependencies, VCS data, build output, virtual environments, caches. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set([
  'node_modules',
  'bower_components',
  'jspm_packages',
  '.pnpm-store',
  '.yarn',
  '.git',
  '.hg',
  '.svn',
  'dist',
  'out',
  'build',
  'target',
  'coverage',
  '.next',
  '.nuxt',
  '.turbo',
  '.parcel-cache',
  '.cache',
  '.venv',
  'venv',
  '__pycache__',
  '.tox',
  '.nox',
  '.mypy_cache',
  '.pytest_cache',
  '.ruff_cache',
  '.gradle',
  '.terraform',
  '.vscode-test',
  '.vs',
]);

/** JSON files with well-known names that are never specs or configs (read none of them). */
const NEVER_SPECS =
  /^(package(-lock)?\.json|composer\.(json|lock)|[tj]sconfig(\..*)?\.json|lerna\.json|nx\.json|angular\.json|\.eslintrc\.json|\.prettierrc\.json|turbo\.json|vercel\.json|renovate\.json|\.babelrc\.json|project\.json|manifest\.json)$/i;

/** Largest file read (a spec or a config); bigger files are data, not specs. */
export const MAX_FILE_BYTES = 20 * 1024 * 1024;
/** How much of a JSON file is read to decide whether it may be a spec. */
const SNIFF_BYTES = 64 * 1024;
const DEFAULT_MAX_FILES = 200_000;
/** File system calls in flight at once: enough to keep libuv's thread pool (4 threads by default) busy. */
const CONCURRENCY = 16;

/** Options for `detectWorkspace`. */
export interface DetectOptions {
  /** Stops the scan; the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Files looked at before the scan stops and says so (default 200,000). */
  maxFiles?: number;
}

/** What a workspace folder holds. Paths are absolute; every list is sorted. */
export interface DetectResult {
  /** Server definitions from recognised config files, by file path then order in the file. */
  definitions: ServerDefinition[];
  /** JSON files shaped like a `tools/list` result, by path. */
  specFiles: string[];
  /** Configs that could not be read or are not configs, specs that do not parse, a scan cut short. */
  problems: LoadProblem[];
}

// The callback API, promisified by hand: measurably faster than `fs/promises` FileHandles when
// tens of thousands of small files are opened (no handle objects, no close bookkeeping).
const openFile = (path: string) => new Promise<number>((ok, fail) => open(path, 'r', (e, fd) => (e ? fail(e) : ok(fd))));
const closeFile = (fd: number) => new Promise<void>((ok) => close(fd, () => ok()));
const fileSize = (fd: number) => new Promise<number>((ok, fail) => fstat(fd, (e, st) => (e ? fail(e) : ok(st.size))));
const listDir = (path: string) => new Promise<Dirent[]>((ok, fail) => readdir(path, { withFileTypes: true }, (e, entries) => (e ? fail(e) : ok(entries))));

/** Fills `buffer` from the start of an open file; returns how many bytes were read (fewer at end of file). */
async function readInto(fd: number, buffer: Buffer): Promise<number> {
  let filled = 0;
  while (filled < buffer.length) {
    const n = await new Promise<number>((ok, fail) => read(fd, buffer, filled, buffer.length - filled, filled, (e, bytes) => (e ? fail(e) : ok(bytes))));
    if (n === 0) break;
    filled += n;
  }
  return filled;
}

/** Reads a whole open file of known size as UTF-8. */
async function readAll(fd: number, size: number): Promise<string> {
  const buffer = Buffer.allocUnsafe(size);
  const n = await readInto(fd, buffer);
  return buffer.toString('utf8', 0, n);
}

type FileKind = 'config' | 'json';

/** A file found by the walk that is worth opening. */
interface Candidate {
  path: string;
  /** Path relative to the root, with `/`. */
  rel: string;
  kind: FileKind;
}

// What a file's first bytes must show to be read in full. A spec is an object whose "tools" list
// starts near the top (every shape written or seen in the wild has it within the first KB), or
// an array of named tool objects. A generic config has an "mcpServers" object. Anything else
// (package locks, data, schemas, a "tools" that is not a list) is never fully read or parsed.
const SPEC_OBJECT = /^\s*\{[\s\S]*"tools"\s*:\s*\[/;
const SPEC_ARRAY = /^\s*\[\s*\{[\s\S]*"name"/;
const GENERIC_CONFIG = /^\s*\{[\s\S]*"mcpServers"\s*:\s*\{/;

/** Native JSON.parse (far faster than building a tree); undefined when the text is not plain JSON. */
function parseFast(text: string): unknown {
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as unknown;
  } catch {
    return undefined;
  }
}

/** Runs `worker` over `items` with at most `n` in flight; `lane` (0…n-1) lets a worker own per-lane state. */
async function forEachConcurrently<T>(items: readonly T[], n: number, worker: (item: T, lane: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (id: number): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await worker(item, id);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, (_, i) => lane(i)));
}

/**
 * Walks `root` and reports server definitions from every recognised config file (see
 * `formatForPath`; also any other JSON file with a top-level `mcpServers` map) and every JSON
 * file shaped like a tool spec (`isSpecShaped`). Heavy folders (`SKIPPED_DIRECTORIES`) and
 * symbolic links are not followed. Files under well-known names (`package.json`, `tsconfig.json`…)
 * are not opened, and other JSON is parsed only when its first 64 KB show a `"tools": [` list (or
 * an array of named objects, or an `mcpServers` object). Never throws for file trouble (it becomes
 * a problem); rejects with the signal's reason when `signal` aborts.
 */
export async function detectWorkspace(root: string, options: DetectOptions = {}): Promise<DetectResult> {
  const { signal } = options;
  const maxFiles = options.maxFiles ?? DEFAULT_MAX_FILES;
  const definitions: ServerDefinition[] = [];
  const specFiles: string[] = [];
  const problems: LoadProblem[] = [];

  // 1. The walk: list folders breadth-first under the concurrency bound, keeping only the files
  //    worth opening. Listing is cheap next to opening files, so it runs to completion first.
  const candidates: Candidate[] = [];
  let filesSeen = 0;
  let truncated = false;
  let level: { path: string; rel: string }[] = [{ path: root, rel: '' }];
  while (level.length > 0 && !truncated) {
    const nextLevel: { path: string; rel: string }[] = [];
    await forEachConcurrently(level, CONCURRENCY, async (dir) => {
      signal?.throwIfAborted();
      let entries: Dirent[];
      try {
        entries = await listDir(dir.path);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // A folder removed mid-scan is not the workspace's problem; a missing root is the caller's.
        if (code !== 'ENOENT' || dir.path === root) problems.push({ file: dir.path, message: `cannot list folder: ${code ?? String(error)}` });
        return;
      }
      // A harness folder (manifest.json beside records/) holds generated data and a copy of its
      // spec: neither is a workspace spec, and its records need no reading.
      const harness = entries.some((e) => e.name === MANIFEST_FILE && e.isFile()) && entries.some((e) => e.name === RECORDS_DIR && e.isDirectory());
      for (const entry of entries) {
        const name = entry.name;
        const rel = dir.rel ? `${dir.rel}/${name}` : name;
        if (harness && (name === HARNESS_SPEC_FILE || name === RECORDS_DIR)) continue;
        if (entry.isDirectory()) {
          if (!SKIPPED_DIRECTORIES.has(name)) nextLevel.push({ path: join(dir.path, name), rel });
          continue;
        }
        if (!entry.isFile()) continue; // symbolic links, sockets, devices
        if (++filesSeen > maxFiles) {
          truncated = true;
          return;
        }
        const lower = name.toLowerCase();
        const isJson = lower.endsWith('.json');
        if (!isJson && !lower.endsWith('.toml') && !lower.endsWith('.yaml') && !lower.endsWith('.yml')) continue;
        if (formatForPath(rel)) candidates.push({ path: join(dir.path, name), rel, kind: 'config' });
        else if (isJson && !NEVER_SPECS.test(name)) candidates.push({ path: join(dir.path, name), rel, kind: 'json' });
      }
    });
    level = nextLevel;
  }
  if (truncated) problems.push({ file: root, message: `scan stopped after ${maxFiles} files; some configs or specs may be missing` });

  // 2. The reads: one sniff buffer per lane, reused, so tens of thousands of small files cost
  //    no allocation beyond their text.
  const sniffBuffers = Array.from({ length: Math.min(CONCURRENCY, candidates.length) }, () => Buffer.allocUnsafe(SNIFF_BYTES));

  const inspectConfig = async (fd: number, c: Candidate): Promise<void> => {
    const size = await fileSize(fd);
    if (size > MAX_FILE_BYTES) {
      problems.push({ file: c.path, message: `not read: larger than ${MAX_FILE_BYTES / 1024 / 1024} MB` });
      return;
    }
    const result = parseConfig(await readAll(fd, size), c.path, formatForPath(c.rel));
    definitions.push(...result.definitions);
    problems.push(...result.problems);
  };

  const inspectJson = async (fd: number, c: Candidate, sniff: Buffer): Promise<void> => {
    // Most JSON files are small: one read of the sniff window returns all of it, so no stat is
    // needed. Only a file that fills the window is measured (for the size cap) and read on.
    const n = await readInto(fd, sniff);
    if (n === 0) return;
    const head = sniff.toString('utf8', 0, n);
    const maybeSpec = SPEC_OBJECT.test(head) || SPEC_ARRAY.test(head);
    const maybeConfig = GENERIC_CONFIG.test(head);
    if (!maybeSpec && !maybeConfig) return;
    let text = head;
    if (n === SNIFF_BYTES) {
      const size = await fileSize(fd);
      if (size > MAX_FILE_BYTES) return;
      text = await readAll(fd, size);
    }
    if (maybeConfig) {
      const result = parseConfig(text, c.path, 'mcp-servers-json');
      // Only a real config counts: a file that merely mentions mcpServers is not reported.
      if (result.isConfig) {
        definitions.push(...result.definitions);
        problems.push(...result.problems);
        return;
      }
    }
    if (!maybeSpec) return;
    const value = parseFast(text);
    if (value !== undefined) {
      if (isSpecShaped(value)) specFiles.push(c.path);
      return;
    }
    const parsed = parseJsonText(text, c.path); // JSONC, or broken: the slow parser says where
    if (parsed.ok) {
      if (isSpecShaped(parsed.value)) specFiles.push(c.path);
    } else if (text.includes('"inputSchema"')) {
      // Broken JSON that looks like a spec is worth a problem; other broken JSON is not ours.
      problems.push(parsed.problem);
    }
  };

  await forEachConcurrently(candidates, CONCURRENCY, async (c, lane) => {
    signal?.throwIfAborted();
    let fd: number | undefined;
    try {
      fd = await openFile(c.path);
      if (c.kind === 'config') await inspectConfig(fd, c);
      else await inspectJson(fd, c, sniffBuffers[lane] as Buffer);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A file that vanished between listing and reading is not a problem of the workspace.
      if (code !== 'ENOENT') problems.push({ file: c.path, message: `cannot read: ${code ?? String(error)}` });
    } finally {
      if (fd !== undefined) await closeFile(fd);
    }
  });
  signal?.throwIfAborted();

  // Sorted so the result does not depend on which read finished first. Within a file,
  // definitions keep their order (the sort is stable and they were pushed together).
  definitions.sort((a, b) => byCodeUnit(a.file, b.file));
  specFiles.sort(byCodeUnit);
  problems.sort((a, b) => byCodeUnit(a.file, b.file) || (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0) || byCodeUnit(a.message, b.message));
  return { definitions, specFiles, problems };
}
