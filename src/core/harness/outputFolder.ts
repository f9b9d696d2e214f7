/**
 * Claiming a folder to write a harness into. A run writes `manifest.json`, `spec.json` and
 * `records/`, and after a complete run removes the records of earlier runs it replaced. That is
 * only safe in a folder that is a harness of the same spec (or new, or empty): a folder the user
 * points at by mistake must lose nothing. So a run:
 * - refuses a path that is a file, a non-empty folder that is not a harness, and the harness of
 *   another spec (unless forced);
 * - takes the folder's lock (one writer at a time);
 * - removes only records that an earlier manifest listed as its own (`recordIds`, plus the
 *   `earlierRecordIds` an unfinished run carried forward), never any other file;
 * - refuses a folder whose records/, runs/, .cache/ or manifest is a link or holds one
 *   (`ContainmentError`, containment.ts), before writing anything.
 */
import { mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { FileReadError } from '../boundedRead';
import { checkHarnessFolder, ContainmentError, readFileInside } from '../containment';
import { HarnessManifest } from './format';
import { LOCK_FILE, MANIFEST_FILE, RECORDS_DIR } from './layout';
import { lockFolder, type FolderLock } from './lock';

/**
 * The folder cannot be written as asked (the run did not start; nothing was changed). The message
 * suits any front end; `forcible` says that forcing the write would get past it, so a front end
 * with such a switch (the CLI's `--force`) can say so.
 */
export class OutputFolderError extends Error {
  override readonly name = 'OutputFolderError';
  constructor(
    message: string,
    /** What forcing would do here: write into the folder anyway, or replace another spec's harness. */
    readonly forcible?: 'write' | 'replace',
  ) {
    super(message);
  }
}

/** A claimed output folder: its lock, and the record ids earlier runs left there. */
export interface OutputClaim extends FolderLock {
  /** Ids of records earlier runs wrote here (the only records a complete run may remove). */
  readonly earlierRecordIds: readonly string[];
}

export interface ClaimOptions {
  /** The spec the run generates for (a harness of another spec is refused unless `force`). */
  specName: string;
  /** Write into a folder that is not a harness, or replace another spec's harness. */
  force?: boolean;
  /** What the lock holder is doing (shown to a second run). */
  purpose?: string;
}

/** True when a folder entry says nothing about ownership: hidden entries and an empty records/. */
async function ignorable(dir: string, name: string): Promise<boolean> {
  if (name.startsWith('.')) return true;
  if (name !== RECORDS_DIR) return false;
  try {
    return (await readdir(join(dir, name))).length === 0;
  } catch {
    return false;
  }
}

async function readEarlierManifest(dir: string): Promise<{ manifest?: HarnessManifest; problem?: string; exists: boolean }> {
  let text: string;
  try {
    text = await readFileInside(dir, join(dir, MANIFEST_FILE));
  } catch (e) {
    if (e instanceof FileReadError && e.reason === 'missing') return { exists: false };
    if (e instanceof ContainmentError) throw e;
    return { exists: true, problem: `cannot read ${MANIFEST_FILE}: ${(e as Error).message}` };
  }
  try {
    const parsed = HarnessManifest.safeParse(JSON.parse(text));
    return parsed.success ? { exists: true, manifest: parsed.data } : { exists: true, problem: `${MANIFEST_FILE} is not a harness manifest` };
  } catch {
    return { exists: true, problem: `${MANIFEST_FILE} is not valid JSON` };
  }
}

/**
 * Checks and locks `dir` for a generation run (creating it when missing). Throws
 * {@link OutputFolderError} when the folder must not be written, or `FolderLockedError` when
 * another run holds it. Release the claim when the run ends.
 */
export async function claimOutputFolder(dir: string, options: ClaimOptions): Promise<OutputClaim> {
  const info = await stat(dir).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return undefined;
    throw new OutputFolderError(`${dir}: ${e.code ?? e.message}`);
  });
  if (info && !info.isDirectory()) throw new OutputFolderError(`${dir} is a file, not a folder: choose a folder for the harness`);
  await mkdir(dir, { recursive: true }).catch((e: NodeJS.ErrnoException) => {
    throw new OutputFolderError(`cannot create ${dir}: ${e.code ?? e.message}`);
  });
  // A harness folder from elsewhere (cloned, a pull request) whose records/ is a link to `../..`
  // would have the run write records there and remove files there: refused before anything is
  // written, not even the lock (containment.ts).
  await checkHarnessFolder(dir);
  const lock = await lockFolder(dir, options.purpose ?? 'generate');
  try {
    const earlier = await readEarlierManifest(dir);
    if (!options.force) {
      if (earlier.problem) throw new OutputFolderError(`${dir}: ${earlier.problem}; fix or remove it`, 'write');
      if (!earlier.exists) {
        const names = (await readdir(dir)).filter((n) => n !== LOCK_FILE);
        const foreign: string[] = [];
        for (const n of names) if (!(await ignorable(dir, n))) foreign.push(n);
        if (foreign.length) {
          const shown = foreign.slice(0, 3).join(', ') + (foreign.length > 3 ? ', …' : '');
          throw new OutputFolderError(`${dir} holds files (${shown}) and is not a harness folder (no ${MANIFEST_FILE}): choose a new or empty folder`, 'write');
        }
      }
      const other = earlier.manifest?.spec.name;
      if (other !== undefined && other !== options.specName) {
        throw new OutputFolderError(`${dir} holds the harness of "${other}", not "${options.specName}": choose another folder`, 'replace');
      }
    }
    const m = earlier.manifest;
    const earlierRecordIds = m ? [...new Set([...m.recordIds, ...(m.earlierRecordIds ?? [])])] : [];
    return { earlierRecordIds, release: () => lock.release() };
  } catch (e) {
    await lock.release();
    throw e;
  }
}
