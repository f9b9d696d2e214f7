/**
 * The offline run: the deterministic offline generator (`generateOfflineYielding`, so the
 * extension host can breathe) builds every scenario, then hands out each record as it is
 * assembled and it is written at once, the manifest following at most every
 * `OFFLINE_MANIFEST_EVERY_MS` (a manifest lists every record, so one per record would make a
 * large run quadratic); same seed → byte-identical records. Cancelling stops within a step:
 * the records written so far stay, listed by the final manifest (status `cancelled`).
 */
import { resolve } from 'node:path';
import type { HarnessManifest, SkippedTool } from '../harness/format';
import { DEFAULT_COMPLEX, DEFAULT_SEED, DEFAULT_SIMPLE, OFFLINE_MANIFEST_EVERY_MS } from '../workspace/defaults';
import { generateOfflineYielding, offlineManifest, type OfflineEvent, type OfflineResult } from './offline';
import { Progress, ZERO_LLM } from './progress';
import { finalResult, type PipelineResult, type RunPipelineOptions } from './runOptions';
import { emptyCounts, recordCounts, RunWriter, type ManifestUpdate } from './runWriter';
import { emptyReason } from './runHealth';

/** Runs the offline generator into a claimed folder (`earlier`: the record ids already there). Stops between steps when cancelled. */
export async function runOffline(o: RunPipelineOptions, earlier: readonly string[]): Promise<PipelineResult> {
  const now = o.now ?? Date.now;
  const started = now();
  const outDir = resolve(o.outDir);
  const opts = {
    seed: Math.trunc(o.seed ?? DEFAULT_SEED),
    simple: Math.max(0, o.simple ?? DEFAULT_SIMPLE),
    complex: Math.max(0, o.complex ?? DEFAULT_COMPLEX),
  };
  const progress = new Progress(now, () => ZERO_LLM, o.onProgress);
  const startedAt = new Date(started).toISOString();
  const none: OfflineResult = { records: [], manifestCounts: emptyCounts(o.spec, []), skipped: [] };
  const writer = new RunWriter(outDir, { ...offlineManifest(o.spec, opts, none, { startedAt }), status: 'running', recordIds: [] }, earlier);
  await writer.start(o.spec);

  let skipped: SkippedTool[] = [];
  const counts: ManifestUpdate = (m, records) => ({
    ...m,
    counts: recordCounts(o.spec, records, { repaired: {}, discarded: {}, coverageRound: 0, skipped }),
  });
  let manifestAt = now();
  const onEvent = async (e: OfflineEvent): Promise<void> => {
    if (e.kind === 'planned') {
      skipped = e.skipped;
      progress.add('write', e.records);
      return;
    }
    const due = now() - manifestAt >= OFFLINE_MANIFEST_EVERY_MS;
    await writer.writeRecord(e.record, due ? counts : undefined);
    if (due) manifestAt = now();
    progress.records++;
    progress.done('write');
  };

  let result: OfflineResult | undefined;
  try {
    result = await generateOfflineYielding(o.spec, opts, o.signal, onEvent);
  } catch (e) {
    // Cancelled (the signal's reason): what is written stays; anything else is a failure of the generator.
    if (!o.signal?.aborted) throw e;
  }
  let status: PipelineResult['status'] = result ? 'complete' : 'cancelled';
  const finished = now();
  const ids = writer.records.map((r) => r.id);
  // 0 records is not a success (and an empty run removes nothing earlier runs wrote).
  const empty = status === 'complete' && ids.length === 0;
  if (empty) status = 'empty';
  const removedStale = status === 'complete' ? await writer.removeStale(ids) : 0;
  const manifest: HarnessManifest = {
    ...offlineManifest(o.spec, opts, result ?? { ...none, skipped }, {
      startedAt,
      finishedAt: new Date(finished).toISOString(),
      durationMs: finished - started,
    }),
    status,
    recordIds: ids,
    counts: result ? result.manifestCounts : recordCounts(o.spec, writer.records, { repaired: {}, discarded: {}, coverageRound: 0, skipped }),
  };
  if (empty && result)
    manifest.error = emptyReason({ tools: o.spec.tools.length, skipped: result.skipped, requested: opts, discarded: result.manifestCounts.discarded });
  manifest.timings.stages = progress.timings();
  await writer.finish(manifest);
  return finalResult(status, outDir, writer.current, {
    llm: ZERO_LLM,
    wallTimeMs: finished - started,
    groups: 0,
    chainDepth: 0,
    maxPromptTokens: 0,
    removedStale,
    ...(manifest.error !== undefined ? { error: manifest.error } : {}),
  });
}
