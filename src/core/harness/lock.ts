/**
 * One writer per harness folder. Generation and judging both rewrite files in a harness folder;
 * two of them at once remove or overwrite each other's work and both report success. A lock file
 * (`.agent-seer.lock`, created exclusively) names the holder; a lock whose holder process is gone
 * (killed, crashed) on this machine is stale and taken over.
 */
import { rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { ContainmentError, readFileInside } from '../containment';
import { LOCK_FILE } from './layout';
import { processAlive } from '../util/processAlive';

/** What holds a folder: written into the lock file. */
export interface LockHolder {
  pid: number;
  hostname: string;
  /** What the holder is doing, e.g. `generate` or `judge`. */
  purpose: string;
  /** ISO time the lock was taken. */
  since: string;
}

/** The folder is held by another live run. */
export class FolderLockedError extends Error {
  override readonly name = 'FolderLockedError';
  constructor(
    readonly dir: string,
    readonly holder: LockHolder | undefined,
  ) {
    const who = holder
      ? `${holder.purpose} run (pid ${holder.pid}${holder.hostname !== hostname() ? ` on ${holder.hostname}` : ''}, since ${holder.since})`
      : 'another run';
    super(`${dir} is in use by another ${who}; wait for it to finish, or delete ${join(dir, LOCK_FILE)} if no such run is going on`);
  }
}

/** A held lock. */
export interface FolderLock {
  /** Removes the lock file (only if it is still ours). Safe to call twice. */
  release(): Promise<void>;
}

/** A lock file nobody could read for this long was left by a process that died writing it. */
const UNREADABLE_STALE_MS = 5000;

/** A lock file is a line of JSON; anything longer is not one. */
const MAX_LOCK_BYTES = 4096;

async function readHolder(file: string): Promise<LockHolder | undefined> {
  try {
    // Never through a link (containment.ts): a lock file linked to a key file must not be read.
    const v = JSON.parse(await readFileInside(dirname(file), file, MAX_LOCK_BYTES)) as Partial<LockHolder>;
    if (typeof v.pid === 'number' && typeof v.hostname === 'string')
      return { pid: v.pid, hostname: v.hostname, purpose: String(v.purpose ?? 'run'), since: String(v.since ?? '?') };
  } catch (e) {
    if (e instanceof ContainmentError) throw e;
    // Unreadable or half-written: treated as no holder information below.
  }
  return undefined;
}

async function unreadableAndOld(file: string): Promise<boolean> {
  try {
    return Date.now() - (await stat(file)).mtimeMs > UNREADABLE_STALE_MS;
  } catch {
    return true; // gone already
  }
}

/**
 * Takes the lock of `dir` (which must exist) for `purpose`, or throws {@link FolderLockedError}.
 * A lock left by a process of this machine that no longer runs is removed and retaken; a lock
 * from another machine (a shared folder) is never assumed stale.
 */
export async function lockFolder(dir: string, purpose: string): Promise<FolderLock> {
  const file = join(dir, LOCK_FILE);
  const me: LockHolder = { pid: process.pid, hostname: hostname(), purpose, since: new Date().toISOString() };
  const text = `${JSON.stringify(me)}\n`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await writeFile(file, text, { flag: 'wx' });
      let released = false;
      return {
        release: async () => {
          if (released) return;
          released = true;
          const now = await readHolder(file);
          if (now && now.pid === me.pid && now.since === me.since) await rm(file, { force: true });
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const holder = await readHolder(file);
    // No readable holder: one still writing its file (give it a moment), or one that died
    // between creating and writing it (stale once it is a few seconds old).
    const stale = holder ? holder.hostname === hostname() && holder.pid !== process.pid && !processAlive(holder.pid) : await unreadableAndOld(file);
    if (!holder && !stale) {
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    if (!stale) throw new FolderLockedError(dir, holder);
    await rm(file, { force: true });
  }
  throw new FolderLockedError(dir, await readHolder(file));
}

/**
 * For readers of a harness (report, export): throws {@link FolderLockedError} naming the holder
 * when a live generation or judging run holds `dir`, since what it has written so far is a
 * partial harness (the records so far, a manifest saying `running`) that would be reported as if
 * it were the result. A lock whose process on this machine is gone does not count (the run was
 * killed; what it left is read as it is, with its manifest's status), and neither does a missing
 * folder. A lock file that is a link is refused (`ContainmentError`).
 */
export async function assertNotLocked(dir: string): Promise<void> {
  const file = join(dir, LOCK_FILE);
  const exists = await stat(file).then(
    () => true,
    () => false,
  );
  if (!exists) {
    // A dangling link is not seen by stat: let readHolder's check name it.
    await readHolder(file);
    return;
  }
  const holder = await readHolder(file);
  if (holder) {
    const gone = holder.hostname === hostname() && !processAlive(holder.pid);
    if (!gone) throw new FolderLockedError(dir, holder);
    return;
  }
  // Unreadable: a run still writing its lock file, unless it is old (one that died writing it).
  if (!(await unreadableAndOld(file))) throw new FolderLockedError(dir, undefined);
}
