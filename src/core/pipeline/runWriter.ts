/**
 * Writing a run as it goes: each record the moment it is complete, then the manifest (status
 * `running`, the ids so far), one write at a time so a crash or a reader never sees a manifest
 * naming a record that is not on disk. Both writes are atomic (harness store).
 */
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { HarnessManifest, HarnessRecord, ManifestCounts } from '../harness/format';
import { HARNESS_SPEC_FILE, recordFileStem, RECORDS_DIR, stableJson, writeFileAtomic, writeManifest, writeRecord } from '../harness/store';
import type { Spec } from '../spec/model';
import { mergeCounts, sortedCounts, type Counts } from './llm/counts';

/** Counts of a set of records (the parts derivable from the records themselves). */
export function recordCounts(spec: Spec, records: readonly HarnessRecord[], extra: { repaired: Counts; discarded: Counts; coverageRound: number; skipped: ManifestCounts['skipped'] }): ManifestCounts {
  const toolNames = [...new Set(spec.tools.map((t) => t.name))];
  const covered = new Set(records.flatMap((r) => r.expected_tools.map((c) => c.name)));
  const uncovered = toolNames.filter((t) => !covered.has(t));
  const repaired: Counts = {};
  const discarded: Counts = {};
  mergeCounts(repaired, extra.repaired);
  mergeCounts(discarded, extra.discarded);
  return {
    records: records.length,
    byTier: { simple: records.filter((r) => r.tier === 'simple').length, complex: records.filter((r) => r.tier === 'complex').length },
    multiCall: records.filter((r) => r.expected_tools.length >= 2).length,
    multiTurn: records.filter((r) => r.conversation.length >= 2).length,
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

/** Serialised writer of one run's folder. */
export class RunWriter {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly written = new Map<string, HarnessRecord>();
  private manifest: HarnessManifest;

  constructor(
    readonly outDir: string,
    initial: HarnessManifest,
  ) {
    this.manifest = initial;
  }

  /** Records written so far, in write order. */
  get records(): HarnessRecord[] {
    return [...this.written.values()];
  }

  /** The last manifest written (or to be written). */
  get current(): HarnessManifest {
    return this.manifest;
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
      await mkdir(join(this.outDir, RECORDS_DIR), { recursive: true });
      const copy = { ...(spec.server ? { server: spec.server } : {}), provenance: spec.source, tools: spec.tools };
      await writeFileAtomic(join(this.outDir, HARNESS_SPEC_FILE), stableJson(copy));
      await writeManifest(this.outDir, this.manifest);
    });
  }

  /** Writes one record, then the manifest with `update` applied (e.g. new counts). */
  writeRecord(record: HarnessRecord, update: (m: HarnessManifest, records: readonly HarnessRecord[]) => HarnessManifest): Promise<void> {
    return this.enqueue(async () => {
      await writeRecord(this.outDir, record);
      this.written.set(record.id, record);
      this.manifest = update({ ...this.manifest, recordIds: [...this.written.keys()] }, this.records);
      await writeManifest(this.outDir, this.manifest);
    });
  }

  /** Writes the final manifest. */
  finish(manifest: HarnessManifest): Promise<void> {
    return this.enqueue(async () => {
      this.manifest = manifest;
      await writeManifest(this.outDir, manifest);
    });
  }

  /**
   * Removes record files of earlier runs that this run did not produce, so the folder holds
   * exactly what the manifest lists. Only after a complete run; returns how many went.
   */
  removeStale(keep: readonly string[]): Promise<number> {
    return this.enqueue(async () => {
      const stems = new Set(keep.map((id) => `${recordFileStem(id)}.json`));
      let names: string[];
      try {
        names = await readdir(join(this.outDir, RECORDS_DIR));
      } catch {
        return 0;
      }
      let removed = 0;
      for (const name of names) {
        if (!name.endsWith('.json') || stems.has(name)) continue;
        await rm(join(this.outDir, RECORDS_DIR, name), { force: true });
        removed++;
      }
      return removed;
    });
  }
}
