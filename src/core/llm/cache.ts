/**
 * A content-addressed reply cache on disk. The key hashes everything that determines a reply
 * (stage, prompt version, provider, model, temperature, inputs, sample index), so a cancelled or
 * crashed run resumes where it stopped and an unchanged re-run makes no calls. One file per
 * entry, written atomically as soon as a reply validates.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { FileReadError } from '../boundedRead';
import { checkInside, ensureFolderInside, readFileInside } from '../containment';
import type { DiscardReason, Usage } from './types';
import { processAlive } from '../util/processAlive';
import { writeFailure } from '../util/writeFileAtomic';

/** What determines a reply; hashed into the cache key. */
export interface CacheKeyParts {
  stage: string;
  promptVersion: string;
  provider: string;
  model: string;
  temperature: number;
  sampleIndex: number;
  /** Caller inputs plus digests of the rendered prompt and schema; any JSON value. */
  inputs: unknown;
}

/** A stored outcome: the validated value, or a content discard (transport failures are never stored). */
export type CacheEntry =
  | { ok: true; value: unknown; usage: Usage; attempts: number }
  | {
      ok: false;
      reason: DiscardReason;
      errors: string[];
      usage: Usage;
      attempts: number;
      lastReply?: string;
      /** How many times the discarded item was asked again (`retryDiscarded`), each a new sample: the next one is another. */
      retries?: number;
    };

/**
 * One raw model reply of an item still being re-asked: what the model said at one point of the
 * conversation, kept so a resumed run replays the conversation instead of asking again.
 */
export interface CachedReply {
  text: string;
  finishReason?: string;
  usage: Usage;
}

/** Where replies are kept between runs. */
export interface ReplyCache {
  get(key: string): Promise<CacheEntry | undefined>;
  set(key: string, entry: CacheEntry, parts: CacheKeyParts): Promise<void>;
  /** A raw reply stored under a conversation key (see {@link conversationKey}). */
  getReply(key: string): Promise<CachedReply | undefined>;
  setReply(key: string, reply: CachedReply, parts: CacheKeyParts): Promise<void>;
}

/**
 * The key of the reply to one point of an item's conversation: the item's key plus every turn
 * sent so far. A re-ask built from different errors (say, after a validator changed) is a
 * different conversation and misses, so a replayed reply always answers the same question.
 */
export function conversationKey(itemKey: string, messages: readonly { role: string; content: string }[]): string {
  return sha256(canonicalJson({ v: 1, item: itemKey, messages }));
}

/**
 * JSON with object keys sorted at every level, so equal values hash equally whatever their key
 * order. `undefined` members are dropped (as JSON.stringify does); non-finite numbers become null.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) return 'null';
    if (typeof value === 'bigint') return JSON.stringify(value.toString());
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

/** sha256 hex of a string. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The cache key of a call: sha256 of the canonical JSON of its parts. */
export function cacheKey(parts: CacheKeyParts): string {
  return sha256(canonicalJson({ v: 1, ...parts }));
}

/** In-memory cache, for tests and for runs that must not touch the disk. */
export class MemoryCache implements ReplyCache {
  readonly entries = new Map<string, CacheEntry>();
  readonly replies = new Map<string, CachedReply>();
  async get(key: string): Promise<CacheEntry | undefined> {
    const e = this.entries.get(key);
    return e === undefined ? undefined : structuredClone(e);
  }
  async set(key: string, entry: CacheEntry): Promise<void> {
    this.entries.set(key, structuredClone(entry));
  }
  async getReply(key: string): Promise<CachedReply | undefined> {
    const r = this.replies.get(key);
    return r === undefined ? undefined : structuredClone(r);
  }
  async setReply(key: string, reply: CachedReply): Promise<void> {
    this.replies.set(key, structuredClone(reply));
  }
}

/** A temp file older than this is an orphan whatever its writer's pid says (pids get reused). */
export const ORPHAN_TMP_AGE_MS = 10 * 60_000;

/**
 * Removes the `*.tmp` files an atomic writer left behind when it was killed between writing and
 * renaming (`<name>.<pid>.<random>.tmp`, as `DiskCache` and `writeFileAtomic` name them) under
 * `dir` and one level of sub-folders. A temp file is removed when its writer is no longer running
 * or it is older than {@link ORPHAN_TMP_AGE_MS}, so a concurrent writer's file is never pulled
 * from under it. Returns how many were removed; a folder that does not exist has none.
 */
export async function removeOrphanTmpFiles(dir: string, now: number = Date.now()): Promise<number> {
  let removed = 0;
  const sweep = async (folder: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const path = join(folder, e.name);
      if (e.isDirectory()) {
        if (depth > 0) await sweep(path, depth - 1);
        continue;
      }
      const m = /\.(\d+)\.[0-9a-f]+\.tmp$/.exec(e.name);
      if (!m) continue;
      const pid = Number(m[1]);
      const age = await stat(path).then(
        (s) => now - s.mtimeMs,
        () => undefined,
      );
      if (age === undefined) continue;
      const orphan = age > ORPHAN_TMP_AGE_MS || (pid !== process.pid && !processAlive(pid));
      if (
        orphan &&
        (await unlink(path).then(
          () => true,
          () => false,
        ))
      )
        removed++;
    }
  };
  await sweep(dir, 1);
  return removed;
}

/** The on-disk file of one entry (format version 1): an item's outcome, or one raw reply of it. */
interface CacheFile {
  version: 1;
  key: string;
  createdAt: string;
  /** The key's parts minus the inputs (which can be large): enough to see what an entry is. */
  about: Omit<CacheKeyParts, 'inputs'>;
  entry?: CacheEntry;
  reply?: CachedReply;
}

/**
 * One JSON file per entry under `<dir>/<first 2 hex>/<key>.json`. Writes go to a unique temp file
 * then `rename`, so a reader never sees half an entry and concurrent writers of the same key
 * cannot corrupt it (the last rename wins, and either reply is valid for the key). Unreadable files count as misses.
 * The first access removes temp files orphaned by a killed writer ({@link removeOrphanTmpFiles}).
 * Every folder and file from `root` (the cache folder, `<harness>/.cache` or `--cache-dir`) down
 * is reached without following a link (containment.ts): a cloned harness whose `.cache/llm` is a
 * link cannot have replies written, read or temp files swept where it leads.
 */
export class DiskCache implements ReplyCache {
  private swept: Promise<number> | undefined;

  constructor(
    readonly dir: string,
    /** The folder the cache is contained in (checked from there down); default the folder above `dir`. */
    readonly root: string = dirname(dir),
  ) {}

  /** Removes orphaned temp files once per instance (awaited by the first read or write), after checking the cache folder is not a link. */
  sweep(): Promise<number> {
    return (this.swept ??= checkInside(this.root, this.dir).then(() => removeOrphanTmpFiles(this.dir)));
  }

  /** The path of a key's file. */
  pathOf(key: string): string {
    if (!/^[0-9a-f]{64}$/.test(key)) throw new Error(`not a cache key: ${key}`);
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  async get(key: string): Promise<CacheEntry | undefined> {
    const file = await this.read(key);
    return file?.entry && typeof file.entry.ok === 'boolean' ? file.entry : undefined;
  }

  async getReply(key: string): Promise<CachedReply | undefined> {
    const file = await this.read(key);
    return file?.reply && typeof file.reply.text === 'string' ? file.reply : undefined;
  }

  async set(key: string, entry: CacheEntry, parts: CacheKeyParts): Promise<void> {
    await this.write(key, { entry }, parts);
  }

  async setReply(key: string, reply: CachedReply, parts: CacheKeyParts): Promise<void> {
    await this.write(key, { reply }, parts);
  }

  private async read(key: string): Promise<Partial<CacheFile> | undefined> {
    await this.sweep();
    let text: string;
    try {
      text = await readFileInside(this.root, this.pathOf(key));
    } catch (e) {
      if (e instanceof FileReadError && (e.reason === 'missing' || e.reason === 'too-large')) return undefined;
      throw e;
    }
    try {
      const file = JSON.parse(text) as Partial<CacheFile>;
      return file.version === 1 && file.key === key ? file : undefined;
    } catch {
      return undefined; // a torn or hand-edited file is just a miss; the next write replaces it
    }
  }

  private async write(key: string, content: Pick<CacheFile, 'entry' | 'reply'>, parts: CacheKeyParts): Promise<void> {
    await this.sweep();
    const path = this.pathOf(key);
    const { inputs: _inputs, ...about } = parts;
    const file: CacheFile = { version: 1, key, createdAt: new Date().toISOString(), about, ...content };
    await ensureFolderInside(this.root, join(this.dir, key.slice(0, 2)));
    await checkInside(this.root, path); // a link where the entry goes is refused, not replaced silently
    const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(tmp, `${JSON.stringify(file, null, 1)}\n`, 'utf8');
    } catch (e) {
      // A full disk: said with the entry's file, and no half-written temp left behind.
      await unlink(tmp).catch(() => undefined);
      throw writeFailure(path, e);
    }
    try {
      await rename(tmp, path);
    } catch (e) {
      // Windows refuses to replace a file another process holds open; that writer stored the
      // same content-addressed entry, so losing this race is harmless.
      await unlink(tmp).catch(() => undefined);
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EPERM' && code !== 'EACCES' && code !== 'EBUSY') throw e;
    }
  }
}
