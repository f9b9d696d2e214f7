/**
 * One rate budget per account, shared by every command and process that uses it: the sliding
 * window of request starts (and a server-requested pause) kept in a small JSON file per quota in
 * the cache folder, read and updated under a lock file for each request. Without it each command
 * started with an empty window: `judge` right after `generate` burst into the 35 requests still in
 * the provider's last minute, drew eleven 429s and idled (1.83× the possible time).
 *
 * The quota is named by provider, endpoint and a hash of the key — never the key. Times are wall
 * clock (`Date.now()`), the one clock two processes share.
 *
 * Locking: `<file>.lock` created exclusively (`open(…, 'wx')`, atomic on Linux, macOS and Windows,
 * no native code), held only for a read and an atomic rewrite (milliseconds), never across a wait.
 * A lock whose holder is no longer running, or older than {@link QUOTA_LOCK_STALE_MS}, is broken,
 * so a process killed while holding it cannot hang anyone.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { ensureFolderInside } from '../containment';
import { processAlive } from '../util/processAlive';
import { abortReason, systemClock, type Clock } from './clock';

/** Folder of the quota files under a cache folder. */
export const QUOTA_DIR = 'quota';
/** A lock older than this is stale whatever its holder's pid says (pids get reused). */
export const QUOTA_LOCK_STALE_MS = 5_000;

/** Which account a provider's requests count against; the key only as a hash. */
export interface QuotaScope {
  /** Provider family: `'gemini'`, `'openai'`. */
  provider: string;
  /** Endpoint root (credentials removed), or `'default'` for the vendor's. */
  endpoint: string;
  /** First 16 hex of the key's SHA-256, or `'none'`. */
  keyHash: string;
}

/** The scope of a provider's quota from its endpoint and key (the key is hashed here and dropped). */
export function quotaScopeOf(provider: string, endpoint: string | undefined, apiKey: string | undefined): QuotaScope {
  return {
    provider,
    endpoint: endpoint ?? 'default',
    keyHash: apiKey ? createHash('sha256').update(apiKey).digest('hex').slice(0, 16) : 'none',
  };
}

/** The quota file's format. */
export const QuotaFileSchema = z.object({
  version: z.literal(1),
  scope: z.object({ provider: z.string(), endpoint: z.string(), keyHash: z.string() }),
  /** Wall-clock starts of the requests in the last window, oldest first (some may be inferred from a 429). */
  starts: z.array(z.number()),
  /** No request starts before this wall-clock time (a 429's Retry-After). */
  blockedUntil: z.number(),
});
export type QuotaFile = z.infer<typeof QuotaFileSchema>;

/** The rate limit a caller keeps: `limit` starts per `windowMs`, or only the server's pauses when `limit` is absent. */
export interface QuotaLimit {
  limit?: number;
  windowMs: number;
}

/** A caller in line for a start. */
interface Waiter {
  limit: QuotaLimit;
  grant: () => void;
  fail: (e: unknown) => void;
}

/** The persisted window of one quota. Build with {@link sharedQuotaFor}; one instance per process and file is best (see {@link acquire}). */
export class SharedQuota {
  readonly file: string;
  private readonly lockFile: string;
  /** This process's callers in line, first come first served, so they do not fight over the lock. */
  private readonly line: Waiter[] = [];
  /** Whether a drain loop is serving the line. */
  private draining = false;
  /** Cuts the drain loop's wait short when the line empties (every waiter cancelled): nothing keeps the process alive. */
  private idle: AbortController | undefined;
  /** Once the file cannot be written, the window is kept here instead (this process's pacing only). */
  private unwritable: QuotaFile | undefined;
  /** The folder made (or checked) below the cache folder without following a link, once. */
  private ready: Promise<void> | undefined;

  constructor(
    private readonly folder: string,
    readonly scope: QuotaScope,
    private readonly clock: Clock = systemClock,
    /** The cache folder it lives in: a link from there down is refused (a cloned harness's `.cache/quota` cannot lead elsewhere). */
    private readonly root: string = dirname(folder),
  ) {
    const id = createHash('sha256').update(`${scope.provider}\n${scope.endpoint}\n${scope.keyHash}`).digest('hex').slice(0, 24);
    this.file = join(folder, `${scope.provider}-${id}.json`);
    this.lockFile = `${this.file}.lock`;
  }

  /**
   * Waits until the window has room (and any server-requested pause is over), then records a
   * start. Rejects with the signal's reason when it aborts first; a caller cancelled while in
   * line leaves at once.
   */
  acquire(limit: QuotaLimit, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        const i = this.line.indexOf(waiter);
        if (i < 0) return;
        this.line.splice(i, 1);
        if (!this.line.length) this.idle?.abort();
        reject(abortReason(signal));
      };
      const waiter: Waiter = {
        limit,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        fail: (e) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.line.push(waiter);
      // A fault of the folder itself (a link where the quota folder should be) fails everyone in line.
      this.drain().catch((e: unknown) => this.line.splice(0).forEach((w) => w.fail(e)));
    });
  }

  /**
   * Serves the line. Every caller in line when the lock is taken is served by one read and one
   * write of the file (a group commit), in order, up to the first that has to wait: at
   * concurrency 16 a lock, a read and an atomic rewrite per request were a line of their own
   * (about a sixth of the process's CPU in `bench/generate.ts`), paid before each request started.
   */
  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.line.length) {
        const granted: Waiter[] = [];
        const wait = await this.update((q, now) => {
          let windowMs = 0;
          for (const w of this.line) windowMs = Math.max(windowMs, w.limit.windowMs);
          prune(q, now, windowMs);
          for (const w of this.line) {
            let wait = q.blockedUntil - now;
            if (w.limit.limit !== undefined) {
              const inWindow = q.starts.filter((t) => t > now - w.limit.windowMs);
              // The start that frees a slot: the one `limit` places before the end of the log.
              if (inWindow.length >= w.limit.limit) wait = Math.max(wait, (inWindow[inWindow.length - w.limit.limit] ?? now) + w.limit.windowMs - now);
            }
            if (wait > 0) return { wait, write: granted.length > 0 };
            q.starts.push(now);
            granted.push(w);
          }
          return { wait: 0, write: granted.length > 0 };
        });
        for (const w of granted) {
          // One cancelled since the file was read has left the line already (its start stays counted: the safe side).
          const i = this.line.indexOf(w);
          if (i < 0) continue;
          this.line.splice(i, 1);
          w.grant();
        }
        if (wait > 0 && this.line.length) {
          this.idle = new AbortController();
          await this.clock.sleep(Math.max(1, wait), this.idle.signal).catch(() => undefined);
          this.idle = undefined;
        }
      }
    } finally {
      this.draining = false;
    }
  }

  /**
   * A 429: nobody starts before `retryAfterMs` from now, and when the caller knows the limit, the
   * window is filled to it — the provider counted that many, some of them perhaps another client's
   * — with the inferred starts spread so the first leaves when the server said a slot frees.
   */
  async rateLimited(retryAfterMs: number | undefined, limit: QuotaLimit): Promise<void> {
    await this.update((q, now) => {
      prune(q, now, limit.windowMs);
      if (retryAfterMs !== undefined) q.blockedUntil = Math.max(q.blockedUntil, now + retryAfterMs);
      const missing = limit.limit !== undefined ? limit.limit - q.starts.length : 0;
      if (missing > 0) {
        const first = now + (retryAfterMs ?? 0) - limit.windowMs;
        const inferred = Array.from({ length: missing }, (_, i) => first + ((now - first) * i) / missing);
        q.starts = [...q.starts, ...inferred].sort((a, b) => a - b);
      }
      return { wait: 0, write: true };
    });
    return undefined;
  }

  /** Reads the file under the lock, applies `change` and writes it back (atomically) when asked. */
  private async update(change: (q: QuotaFile, now: number) => { wait: number; write: boolean }): Promise<number> {
    await (this.ready ??= ensureFolderInside(this.root, this.folder));
    await this.lock();
    try {
      const q = this.read();
      const r = change(q, this.clock.now());
      if (r.write) this.write(q);
      return r.wait;
    } finally {
      rmSync(this.lockFile, { force: true });
    }
  }

  private read(): QuotaFile {
    if (this.unwritable) return this.unwritable;
    try {
      const parsed = QuotaFileSchema.safeParse(JSON.parse(readFileSync(this.file, 'utf8')));
      if (parsed.success) return parsed.data;
    } catch {
      // missing or unreadable: a fresh window (the worst case is a 429 the next request learns from)
    }
    return { version: 1, scope: this.scope, starts: [], blockedUntil: 0 };
  }

  private write(q: QuotaFile): void {
    const tmp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      const fd = openSync(tmp, 'w');
      try {
        writeSync(fd, JSON.stringify(q));
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, this.file);
    } catch {
      // A quota file that cannot be written (read-only cache, full disk) must not stop the run;
      // this process keeps pacing itself in memory, and 429s remain the backstop.
      this.unwritable = q;
      rmSync(tmp, { force: true });
    }
  }

  /** Takes the lock file, breaking it when its holder died or it is stale; polls every few ms. */
  private async lock(): Promise<void> {
    for (let tries = 0; ; tries++) {
      try {
        const fd = openSync(this.lockFile, 'wx');
        try {
          writeSync(fd, String(process.pid));
        } finally {
          closeSync(fd);
        }
        return;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        // EPERM: Windows while another process deletes the file. Anything else (a read-only
        // folder): go on without the lock rather than stop the run.
        if (code !== 'EEXIST' && code !== 'EPERM') return;
      }
      if (this.lockIsStale()) {
        // Renamed away rather than deleted, so of two processes that both judged it stale only
        // one removes it; the other's rename fails and it simply tries again.
        const aside = `${this.lockFile}.${process.pid}.${randomBytes(4).toString('hex')}.stale`;
        try {
          renameSync(this.lockFile, aside);
          unlinkSync(aside);
        } catch {
          // someone else broke it first
        }
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(20, 2 + tries)));
    }
  }

  private lockIsStale(): boolean {
    try {
      const age = Date.now() - statSync(this.lockFile).mtimeMs;
      if (age > QUOTA_LOCK_STALE_MS) return true;
      const pid = Number(readFileSync(this.lockFile, 'utf8'));
      // An empty file is a lock being written this instant: not stale.
      return Number.isInteger(pid) && pid > 0 && pid !== process.pid && !processAlive(pid) && age > 50;
    } catch {
      return false; // gone already: the next try takes it
    }
  }
}

function prune(q: QuotaFile, now: number, windowMs: number): void {
  q.starts = q.starts.filter((t) => t > now - windowMs && t <= now + windowMs);
  if (q.blockedUntil > now + 24 * 3600_000) q.blockedUntil = 0; // a clock that jumped back: ignore
}

/** One {@link SharedQuota} per file in this process, so its callers queue in one line. */
const instances = new Map<string, SharedQuota>();

/** The shared quota of `scope` under `cacheDir` (`<cacheDir>/quota/`), one instance per file in this process. */
export function sharedQuotaFor(cacheDir: string, scope: QuotaScope): SharedQuota {
  const quota = new SharedQuota(join(cacheDir, QUOTA_DIR), scope);
  const known = instances.get(quota.file);
  if (known) return known;
  instances.set(quota.file, quota);
  return quota;
}
