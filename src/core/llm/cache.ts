/**
 * A content-addressed reply cache on disk. The key hashes everything that determines a reply
 * (stage, prompt version, provider, model, temperature, inputs, sample index), so a cancelled or
 * crashed run resumes where it stopped and an unchanged re-run makes no calls. One file per
 * entry, written atomically as soon as a reply validates.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DiscardReason, Usage } from './types';

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
  | { ok: false; reason: DiscardReason; errors: string[]; usage: Usage; attempts: number; lastReply?: string };

/** Where replies are kept between runs. */
export interface ReplyCache {
  get(key: string): Promise<CacheEntry | undefined>;
  set(key: string, entry: CacheEntry, parts: CacheKeyParts): Promise<void>;
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
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort();
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
  async get(key: string): Promise<CacheEntry | undefined> {
    const e = this.entries.get(key);
    return e === undefined ? undefined : structuredClone(e);
  }
  async set(key: string, entry: CacheEntry): Promise<void> {
    this.entries.set(key, structuredClone(entry));
  }
}

/** The on-disk file of one entry (format version 1). */
interface CacheFile {
  version: 1;
  key: string;
  createdAt: string;
  /** The key's parts minus the inputs (which can be large): enough to see what an entry is. */
  about: Omit<CacheKeyParts, 'inputs'>;
  entry: CacheEntry;
}

/**
 * One JSON file per entry under `<dir>/<first 2 hex>/<key>.json`. Writes go to a unique temp file
 * then `rename`, so a reader never sees half an entry and concurrent writers of the same key
 * cannot corrupt it (the last rename wins, and either reply is valid for the key). Unreadable files count as misses.
 */
export class DiskCache implements ReplyCache {
  constructor(readonly dir: string) {}

  /** The path of a key's file. */
  pathOf(key: string): string {
    if (!/^[0-9a-f]{64}$/.test(key)) throw new Error(`not a cache key: ${key}`);
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  async get(key: string): Promise<CacheEntry | undefined> {
    let text: string;
    try {
      text = await readFile(this.pathOf(key), 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
    try {
      const file = JSON.parse(text) as Partial<CacheFile>;
      if (file.version !== 1 || file.key !== key || !file.entry || typeof file.entry.ok !== 'boolean') return undefined;
      return file.entry;
    } catch {
      return undefined; // a torn or hand-edited file is just a miss; the next write replaces it
    }
  }

  async set(key: string, entry: CacheEntry, parts: CacheKeyParts): Promise<void> {
    const path = this.pathOf(key);
    const { inputs: _inputs, ...about } = parts;
    const file: CacheFile = { version: 1, key, createdAt: new Date().toISOString(), about, entry };
    await mkdir(join(this.dir, key.slice(0, 2)), { recursive: true });
    const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(tmp, `${JSON.stringify(file, null, 1)}\n`, 'utf8');
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
