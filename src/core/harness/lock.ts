/**
 * One writer per harness folder. Generation and judging both rewrite files in a harness folder;
 * two of them at once remove or overwrite each other's work and both report success. A lock file
 * (`.agent-seer.lock`, created exclusively) names the holder; a lock whose holder process is gone
 * (killed, crashed) on this machine is stale and taken over.
 */
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
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

async function readHolder(file: string): Promise<LockHolder | undefined> {
  try {
    const v = JSON.parse(await readFile(file, 'utf8')) as Partial<LockHolder>;
    if (typeof v.pid === 'number' && typeof v.hostname === 'string')
      return { pid: v.pid, hostname: v.hostname, purpose: String(v.purpose ?? 'run'), since: String(v.since ?? '?') };
  } catch {
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
