/**
 * Which stages of a record the offline generator wrote in a model run (`--fallback offline`):
 * read from `provenance.stageProviders`. One home for the question, so the CLI summary, the
 * Harnesses tree and the report label the same records.
 */
import type { HarnessRecord } from './format';

/** The offline generator's provider id, as records and manifests name it (`pipeline/offline` re-exports it). */
export const OFFLINE_PROVIDER = 'offline';

/** Stages of a record filled by offline templates in a model run; empty for a model-made or an all-offline record. */
export function offlineStages(record: Pick<HarnessRecord, 'provenance'>): string[] {
  const by = record.provenance.stageProviders ?? {};
  return Object.keys(by)
    .filter((stage) => by[stage] === OFFLINE_PROVIDER)
    .sort();
}

/** A sentence for a run: how many of its records stand on offline templates, or undefined when none do. */
export function describeOfflineTemplates(records: readonly Pick<HarnessRecord, 'provenance'>[], where: string): string | undefined {
  const n = records.filter((r) => offlineStages(r).length > 0).length;
  return n ? `${n} of ${records.length} records of ${where} are offline templates in some stage (--fallback offline), not model-made.` : undefined;
}
