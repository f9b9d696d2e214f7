/**
 * Containment of a folder's inside: the one place that checks, before any read, write or
 * removal, that a path below a trusted folder (a harness folder, a cache folder) is reached
 * through real folders only and is itself a real folder or a regular file, never a symbolic link.
 *
 * Why: a harness folder is often someone else's (cloned, or from a pull request). If its
 * `records/` is a link to `../..`, a run that removes the records of earlier runs removes files
 * of the repository instead; if `records/x.json` is a link to a key file, every command that
 * reads the record prints its first bytes (in a parse error) into the console and the reports.
 * Links are not followed anywhere below the trusted folder: every component is `lstat`ed, and
 * files are opened with `O_NOFOLLOW` where the platform has it, so the file checked is the file
 * read. The trusted folder itself is whatever the user named (a harness folder given on the
 * command line may be a link the user made); everything below it is the harness's content.
 *
 * Lives at the root of core (like `boundedRead.ts`) so that every layer that keeps files in a
 * harness folder uses it: harness/, pipeline/, agents/, llm/ (the reply cache).
 */
import { type Dirent, type Stats } from 'node:fs';
import { lstat, mkdir, readdir, readlink, rm, unlink } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { MAX_INPUT_BYTES } from './bounds';
import { FileReadError, readBoundedFile } from './boundedRead';
import { writeFileAtomic } from './util/writeFileAtomic';
import { CACHE_DIR, HARNESS_SPEC_FILE, LOCK_FILE, MANIFEST_FILE, RECORDS_DIR, RUNS_DIR } from './workspace/layout';

/** What was wrong with a path below a trusted folder. */
export type ContainmentProblem = 'link' | 'not-a-folder';

/**
 * A path below a trusted folder is a symbolic link (or a file where a folder must be). Nothing
 * was read, written or removed through it. `path` is absolute; front ends show it relative to
 * where the user is ({@link ContainmentError.describe}).
 */
export class ContainmentError extends Error {
  override readonly name = 'ContainmentError';
  constructor(
    /** The offending entry (absolute). */
    readonly path: string,
    /** The trusted folder it is in (absolute). */
    readonly root: string,
    readonly problem: ContainmentProblem,
    /** Where the link points, as stored in it. */
    readonly target?: string,
  ) {
    super(containmentText(path, problem, target));
  }

  /** The one-line message with the path as the front end shows paths (e.g. relative to the cwd). */
  describe(show: (path: string) => string): string {
    return containmentText(show(this.path), this.problem, this.target);
  }
}

function containmentText(shown: string, problem: ContainmentProblem, target: string | undefined): string {
  if (problem === 'not-a-folder') return `${shown} is not a folder: refused (a harness folder's records/, runs/ and .cache/ must be real folders)`;
  return `${shown} is a symbolic link${target !== undefined ? ` (to ${JSON.stringify(target)})` : ''}: refused, nothing was read, written or removed through it (the files and folders of a harness folder must be real, not links; remove or replace the link)`;
}

/** `path` lies strictly below `root` (both resolved). */
function below(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !/^[a-zA-Z]:/.test(rel) && !rel.startsWith(sep);
}

async function lstatOrMissing(path: string): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw e;
  }
}

async function linkError(path: string, root: string): Promise<ContainmentError> {
  const target = await readlink(path).catch(() => undefined);
  return new ContainmentError(path, root, 'link', target);
}

/**
 * Checks every component of `path` below `root` (not `root` itself) without following links:
 * throws {@link ContainmentError} for a link anywhere on the way or at the end, and for a
 * component on the way that is not a folder. Returns the entry's own `lstat`, or undefined when
 * it (or a folder on the way) does not exist. `path` must be below `root`.
 */
export async function checkInside(root: string, path: string): Promise<Stats | undefined> {
  const top = resolve(root);
  const full = resolve(path);
  if (!below(top, full)) throw new Error(`internal: ${full} is not inside ${top}`);
  const parts = relative(top, full).split(sep);
  let at = top;
  for (let i = 0; i < parts.length; i++) {
    at = join(at, parts[i]!);
    const s = await lstatOrMissing(at);
    if (!s) return undefined;
    if (s.isSymbolicLink()) throw await linkError(at, top);
    if (i < parts.length - 1 && !s.isDirectory()) throw new ContainmentError(at, top, 'not-a-folder');
    if (i === parts.length - 1) return s;
  }
  return undefined;
}

/**
 * Checks a folder below `root` as {@link checkInside} does, then every entry under it (to
 * `maxDepth` levels): a link anywhere inside is refused. For the preflight of a command that will
 * read or write the folder (a harness's `records/`, `runs/`, `.cache/`). A missing folder passes.
 */
export async function checkTreeInside(root: string, folder: string, maxDepth = 8): Promise<void> {
  const s = await checkInside(root, folder);
  if (!s) return;
  if (!s.isDirectory()) throw new ContainmentError(resolve(folder), resolve(root), 'not-a-folder');
  const walk = async (dir: string, depth: number): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return; // unreadable: whoever reads it says so
    }
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isSymbolicLink()) throw await linkError(path, resolve(root));
      if (e.isDirectory() && depth < maxDepth) await walk(path, depth + 1);
    }
  };
  await walk(resolve(folder), 1);
}

/** Creates a folder below `root` one component at a time, refusing a link on the way (see {@link checkInside}). */
export async function ensureFolderInside(root: string, folder: string): Promise<void> {
  const top = resolve(root);
  const full = resolve(folder);
  if (full === top) {
    await mkdir(top, { recursive: true });
    return;
  }
  await mkdir(top, { recursive: true });
  const parts = relative(top, full).split(sep);
  if (!below(top, full)) throw new Error(`internal: ${full} is not inside ${top}`);
  let at = top;
  for (const part of parts) {
    at = join(at, part);
    let s = await lstatOrMissing(at);
    if (!s) {
      await mkdir(at).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'EEXIST') throw e;
      });
      s = await lstat(at);
    }
    if (s.isSymbolicLink()) throw await linkError(at, top);
    if (!s.isDirectory()) throw new ContainmentError(at, top, 'not-a-folder');
  }
}

/**
 * Lists a folder below `root` (which must be reached through real folders, see
 * {@link checkInside}); undefined when it does not exist. With `refuseLinks`, an entry that is a
 * link is refused as well, before the caller reads anything.
 */
export async function listInside(root: string, folder: string, options: { refuseLinks?: boolean } = {}): Promise<Dirent[] | undefined> {
  const s = await checkInside(root, folder);
  if (!s) return undefined;
  if (!s.isDirectory()) throw new ContainmentError(resolve(folder), resolve(root), 'not-a-folder');
  const entries = await readdir(folder, { withFileTypes: true });
  if (options.refuseLinks) for (const e of entries) if (e.isSymbolicLink()) throw await linkError(join(resolve(folder), e.name), resolve(root));
  return entries;
}

/**
 * Reads a file below `root` (bounded, see `readBoundedFile`): refused with
 * {@link ContainmentError} when it or a folder on the way is a link; the file is opened without
 * following a link, so it cannot be swapped for one between the check and the read.
 */
export async function readFileInside(root: string, file: string, maxBytes: number = MAX_INPUT_BYTES): Promise<string> {
  await checkInside(root, file);
  try {
    return await readBoundedFile(file, maxBytes, { noFollow: true });
  } catch (e) {
    if (e instanceof FileReadError && e.reason === 'link') throw await linkError(resolve(file), resolve(root));
    throw e;
  }
}

/**
 * Writes a file below `root` atomically (`writeFileAtomic`), creating the folders on the way as
 * {@link ensureFolderInside} does; refused when a folder on the way or the file is a link.
 */
export async function writeFileInside(root: string, file: string, text: string): Promise<void> {
  await ensureFolderInside(root, dirname(resolve(file)));
  await checkInside(root, file);
  await writeFileAtomic(file, text);
}

/**
 * Removes a regular file below `root`; returns whether one was removed (a missing file is not an
 * error, a folder or other non-file is left alone). Refused when it or a folder on the way is a link.
 */
export async function removeFileInside(root: string, file: string): Promise<boolean> {
  const s = await checkInside(root, file);
  if (!s || !s.isFile()) return false;
  try {
    await unlink(file);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}

/**
 * Removes a folder below `root` with everything in it. Refused when it or a folder on the way is
 * a link; links inside it are removed as links (`fs.rm` never follows them), not their targets.
 */
export async function removeFolderInside(root: string, folder: string): Promise<void> {
  const s = await checkInside(root, folder);
  if (!s) return;
  await rm(folder, { recursive: true, force: true });
}

/** The files directly in a harness folder (workspace/layout.ts): each must be a regular file, never a link. */
const HARNESS_FILES = [MANIFEST_FILE, HARNESS_SPEC_FILE, LOCK_FILE] as const;
/** The folders of a harness folder: each, and everything in it, must be real (no link anywhere inside). */
const HARNESS_FOLDERS = [RECORDS_DIR, RUNS_DIR, CACHE_DIR] as const;

/**
 * The preflight of every command that reads or changes a harness folder (`readHarness`, claiming
 * an output folder, judging): its manifest, spec copy and lock file are not links, and its
 * `records/`, `runs/` and `.cache/` are real folders with no link anywhere inside. Throws
 * {@link ContainmentError} naming the first link found; nothing has been read or written then.
 * The folder `dir` itself is the user's choice and is not checked here.
 */
export async function checkHarnessFolder(dir: string): Promise<void> {
  for (const name of HARNESS_FILES) await checkInside(dir, join(dir, name));
  for (const name of HARNESS_FOLDERS) await checkTreeInside(dir, join(dir, name));
}
