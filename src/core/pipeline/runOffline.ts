/**
 * The offline run: the deterministic offline generator (`generateOfflineYielding`, so the
 * extension host can breathe) makes every record up front, then they are written one by one
 * with the manifest after each; same seed → byte-identical records.
 */
import { resolve } from 'node:path';
import type { HarnessManifest } from '../harness/format';
import { DEFAULT_COMPLEX, DEFAULT_SEED, DEFAULT_SIMPLE } from '../workspace/defaults';
import { generateOfflineYielding, offlineManifest } from './offline';
import { Progress, ZERO_LLM } from './progress';
import { finalResult, type PipelineResult, type RunPipelineOptions } from './runOptions';
import { emptyCounts, recordCounts, RunWriter } from './runWriter';
import { emptyReason } from './runHealth';

/** Runs the offline generator into a claimed folder (`earlier`: the record ids already there). Stops between records when cancelled. */
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
  const result = await generateOfflineYielding(o.spec, opts);
  const startedAt = new Date(started).toISOString();
  const base: HarnessManifest = {
    ...offlineManifest(o.spec, opts, result, { startedAt }),
    status: 'running',
    recordIds: [],
    counts: emptyCounts(o.spec, result.skipped),
  };
  const writer = new RunWriter(outDir, base, earlier);
  await writer.start(o.spec);
  progress.add('write', result.records.length);
  let status: PipelineResult['status'] = 'complete';
  for (const record of result.records) {
    if (o.signal?.aborted) {
      status = 'cancelled';
      break;
    }
    await writer.writeRecord(record, (m, records) => ({
      ...m,
      counts: recordCounts(o.spec, records, { repaired: {}, discarded: {}, coverageRound: 0, skipped: result.skipped }),
    }));
    progress.records++;
    progress.done('write');
  }
  const finished = now();
  const ids = writer.records.map((r) => r.id);
  const counts =
    status === 'complete'
      ? result.manifestCounts
      : recordCounts(o.spec, writer.records, {
          repaired: result.manifestCounts.repaired,
          discarded: result.manifestCounts.discarded,
          coverageRound: result.manifestCounts.coverageRound,
          skipped: result.skipped,
        });
  // 0 records is not a success (and an empty run removes nothing earlier runs wrote).
  const empty = status === 'complete' && ids.length === 0;
  if (empty) status = 'empty';
  const removedStale = status === 'complete' ? await writer.removeStale(ids) : 0;
  const manifest: HarnessManifest = {
    ...offlineManifest(o.spec, opts, result, { startedAt, finishedAt: new Date(finished).toISOString(), durationMs: finished - started }),
    status,
    recordIds: ids,
    counts,
  };
  if (empty) manifest.error = emptyReason({ tools: o.spec.tools.length, skipped: result.skipped, requested: opts, discarded: result.manifestCounts.discarded });
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
