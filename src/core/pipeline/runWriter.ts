/**
 * Writing a run as it goes: each record the moment it is complete, then the manifest (status
 * `running`, the ids so far), one write at a time so a crash or a reader never sees a manifest
 * naming a record that is not on disk. Both writes are atomic (harness store).
 */
import { join } from 'node:path';
import { ContainmentError, ensureFolderInside, readFileInside, removeFileInside, writeFileInside } from '../containment';
import { HarnessRecord, type HarnessManifest, type ManifestCounts } from '../harness/format';
import { HARNESS_SPEC_FILE, recordFileStem, RECORDS_DIR, stableJson, writeManifest, writeRecord } from '../harness/store';
import type { Spec } from '../spec/model';
import { round4 } from '../util/round4';
import { parseKeepingKeys, safeParseKeepingKeys } from '../util/ownKeys';
import { mergeCounts, sortedCounts, type Counts } from './llm/counts';

/** The counts of a run before its first record: only the skipped tools are known. */
export function emptyCounts(spec: Spec, skipped: ManifestCounts['skipped']): ManifestCounts {
  return recordCounts(spec, [], { repaired: {}, discarded: {}, coverageRound: 0, skipped });
}

/** Counts of a set of records (the parts derivable from the records themselves). */
export function recordCounts(
  spec: Spec,
  records: readonly HarnessRecord[],
  extra: { repaired: Counts; discarded: Counts; coverageRound: number; skipped: ManifestCounts['skipped'] },
): ManifestCounts {
  const toolNames = [...new Set(spec.tools.map((t) => t.name))];
  const covered = new Set(records.flatMap((r) => r.expected_tools.map((c) => c.name)));
  const uncovered = toolNames.filter((t) => !covered.has(t));
  const repaired: Counts = {};
  const discarded: Counts = {};
  mergeCounts(repaired, extra.repaired);
  mergeCounts(discarded, extra.discarded);
  const multiCall = records.filter((r) => r.expected_tools.length >= 2).length;
  const multiTurn = records.filter((r) => r.conversation.length >= 2).length;
  return {
    records: records.length,
    byTier: { simple: records.filter((r) => r.tier === 'simple').length, complex: records.filter((r) => r.tier === 'complex').length },
    multiCall,
    multiTurn,
    multiTurnRate: multiCall ? round4(multiTurn / multiCall) : null,
    coverageRound: extra.coverageRound,
    coverage: {
      tools: toolNames.length,
      covered: toolNames.length - uncovered.length,
      ratio: toolNames.length ? (toolNames.length - uncovered.length) / toolNames.length : 1,
      uncovered,
    },
    repaired: sortedCounts(repaired),
    discarded: sortedCounts(discarded),
    skipped: extra.skipped,
  };
}

/** Writes the harness's copy of its spec (`spec.json`): judging, reporting and stale-only regeneration read it. */
export async function writeSpecCopy(outDir: string, spec: Spec): Promise<void> {
  const copy = { ...(spec.server ? { server: spec.server } : {}), provenance: spec.source, tools: spec.tools };
  await writeFileInside(outDir, join(outDir, HARNESS_SPEC_FILE), stableJson(copy));
}

/** The manifest after a record: the current one (its `recordIds` already the records written) and those records. */
export type ManifestUpdate = (m: HarnessManifest, records: readonly HarnessRecord[]) => HarnessManifest;

/**
 * Serialised writer of one run's folder. Records of earlier runs (`earlier`, from the claim of
 * the folder) stay listed in the manifest's `earlierRecordIds` until this run completes; only then,
 * and only those, are removed — a file this product did not list is never touched.
 */
export class RunWriter {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly written = new Map<string, HarnessRecord>();
  private manifest: HarnessManifest;

  constructor(
    readonly outDir: string,
    initial: HarnessManifest,
    private readonly earlier: readonly string[] = [],
  ) {
    this.manifest = this.withEarlier(initial);
  }

  /** Records written so far, in write order. */
  get records(): HarnessRecord[] {
    return [...this.written.values()];
  }

  /** The last manifest written (or to be written). */
  get current(): HarnessManifest {
    return this.manifest;
  }

  /** The manifest with the earlier runs' records it does not list (none once complete). */
  private withEarlier(m: HarnessManifest): HarnessManifest {
    const { earlierRecordIds: _, ...rest } = m;
    if (m.status === 'complete') return rest;
    const listed = new Set(m.recordIds);
    const left = this.earlier.filter((id) => !listed.has(id));
    return left.length ? { ...rest, earlierRecordIds: left } : rest;
  }

  private enqueue<T>(job: () => Promise<T>): Promise<T> {
    const next = this.queue.then(job, job);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * Creates `records/` (so even a run cancelled at once leaves a readable harness), writes a
   * copy of the spec as `spec.json` (the harness then judges and reports on its own, wherever
   * it is moved) and the initial manifest.
   */
  start(spec: Spec): Promise<void> {
    return this.enqueue(async () => {
      await ensureFolderInside(this.outDir, join(this.outDir, RECORDS_DIR));
      await writeSpecCopy(this.outDir, spec);
      await writeManifest(this.outDir, this.manifest);
    });
  }

  /**
   * Writes one record, then the manifest with `update` applied (e.g. new counts). A record that
   * an earlier run wrote with the same content keeps the judgments it has there: regenerating an
   * unchanged spec does not throw away judging that was paid for. Without `update` only the
   * record is written and the manifest catches up at the next {@link updateManifest} or
   * {@link finish}: a manifest names every record so far, so writing it after each of thousands
   * of records would make a run quadratic in its size.
   */
  writeRecord(record: HarnessRecord, update?: ManifestUpdate): Promise<void> {
    return this.enqueue(async () => {
      const judgments = record.judgments ?? (await this.earlierJudgments(record));
      if (judgments) record = { ...record, judgments };
      await writeRecord(this.outDir, record);
      this.written.set(record.id, record);
      if (update) await this.writeManifestNow(update);
    });
  }

  /** Writes the manifest with the records written so far and `update` applied. */
  updateManifest(update: ManifestUpdate): Promise<void> {
    return this.enqueue(() => this.writeManifestNow(update));
  }

  private async writeManifestNow(update: ManifestUpdate): Promise<void> {
    this.manifest = this.withEarlier(update({ ...this.manifest, recordIds: [...this.written.keys()] }, this.records));
    await writeManifest(this.outDir, this.manifest);
  }

  /** The judgments of the record file an earlier run wrote for this id, when its content is the same. */
  private async earlierJudgments(record: HarnessRecord): Promise<HarnessRecord['judgments']> {
    let text: string;
    try {
      text = await readFileInside(this.outDir, join(this.outDir, RECORDS_DIR, `${recordFileStem(record.id)}.json`));
    } catch (e) {
      if (e instanceof ContainmentError) throw e; // a link where the record goes: the write would be refused too
      return undefined; // none (the usual case), or not readable: nothing to keep
    }
    let earlier: HarnessRecord;
    try {
      const parsed = safeParseKeepingKeys(HarnessRecord, JSON.parse(text));
      if (!parsed.success) return undefined;
      earlier = parsed.data;
    } catch {
      return undefined;
    }
    if (!earlier.judgments) return undefined;
    const { judgments, ...content } = earlier;
    const same = stableJson(parseKeepingKeys(HarnessRecord, content)) === stableJson(parseKeepingKeys(HarnessRecord, { ...record, judgments: undefined }));
    return same ? judgments : undefined;
  }

  /** Writes the final manifest. */
  finish(manifest: HarnessManifest): Promise<void> {
    return this.enqueue(async () => {
      this.manifest = this.withEarlier(manifest);
      await writeManifest(this.outDir, this.manifest);
    });
  }

  /**
   * Removes the records of earlier runs that this run did not produce again, so the folder holds
   * what the manifest lists. Only after a complete run, and only records an earlier manifest
   * listed, and only regular files reached through real folders (containment.ts: a link in the
   * way is refused, never followed); returns how many went.
   */
  removeStale(keep: readonly string[]): Promise<number> {
    return this.enqueue(async () => {
      const kept = new Set(keep.map((id) => recordFileStem(id)));
      let removed = 0;
      for (const stem of new Set(this.earlier.map((id) => recordFileStem(id)))) {
        if (kept.has(stem)) continue;
        if (await removeFileInside(this.outDir, join(this.outDir, RECORDS_DIR, `${stem}.json`))) removed++;
      }
      return removed;
    });
  }
}
