/**
 * The ledger: what the pipeline concluded from each LLM reply, stored beside the LLM reply cache
 * and keyed by the same content hash. The reply cache alone cannot replay a run: a cached value
 * does not say which re-asks it took (the repaired counts), and a cached discard keeps only a
 * clipped reply, not the last full value the pipeline salvaged valid parts from. With the
 * ledger, a resumed or repeated run reports the same counts and builds the same records with
 * zero calls.
 */
import { dirname, join } from 'node:path';
import { checkInside, ContainmentError, readFileInside, writeFileInside } from '../../containment';
import { removeOrphanTmpFiles } from '../../llm/cache';
import type { StepCounts } from './counts';

/** One entry: the counts of a step and, for salvaged discards, the last parsed reply. */
export interface LedgerEntry {
  counts: StepCounts;
  /** The last reply value (already schema-valid) that a salvage used. */
  salvage?: unknown;
}

/** Where ledger entries live. */
export interface Ledger {
  get(key: string): Promise<LedgerEntry | undefined>;
  set(key: string, entry: LedgerEntry): Promise<void>;
}

/** A ledger in memory (tests, and runs whose LLM has no disk cache). */
export class MemoryLedger implements Ledger {
  private readonly entries = new Map<string, LedgerEntry>();
  async get(key: string): Promise<LedgerEntry | undefined> {
    const e = this.entries.get(key);
    return e === undefined ? undefined : structuredClone(e);
  }
  async set(key: string, entry: LedgerEntry): Promise<void> {
    this.entries.set(key, structuredClone(entry));
  }
}

/**
 * One JSON file per entry under `<dir>/<first 2 hex>/<key>.json`, written atomically. The first
 * access removes temp files a killed run left behind. Nothing is read or written through a link
 * from `root` (the cache folder) down (containment.ts).
 */
export class DiskLedger implements Ledger {
  private swept: Promise<number> | undefined;

  constructor(
    readonly dir: string,
    /** The folder the ledger is contained in; default the folder above `dir` (the cache folder). */
    readonly root: string = dirname(dir),
  ) {}

  private sweep(): Promise<number> {
    return (this.swept ??= checkInside(this.root, this.dir).then(() => removeOrphanTmpFiles(this.dir)));
  }

  private pathOf(key: string): string {
    if (!/^[0-9a-f]{64}$/.test(key)) throw new Error(`not a ledger key: ${key}`);
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  async get(key: string): Promise<LedgerEntry | undefined> {
    await this.sweep();
    try {
      const parsed = JSON.parse(await readFileInside(this.root, this.pathOf(key))) as { version?: unknown; entry?: LedgerEntry };
      return parsed.version === 1 && parsed.entry?.counts ? parsed.entry : undefined;
    } catch (e) {
      if (e instanceof ContainmentError) throw e;
      return undefined; // missing or torn: the caller treats it as unknown
    }
  }

  async set(key: string, entry: LedgerEntry): Promise<void> {
    await this.sweep();
    await writeFileInside(this.root, this.pathOf(key), `${JSON.stringify({ version: 1, key, entry })}\n`);
  }
}
