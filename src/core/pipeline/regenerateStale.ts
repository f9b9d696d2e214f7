/**
 * Regenerate stale: after the spec changed, make again only the records that no longer test the
 * server as it is, and keep every other record file exactly as it is (no LLM call for it).
 *
 * The two snapshots are diffed (`harness/specDiff.ts`): the harness's own `spec.json` (the spec
 * it was generated from) against the new spec. A record is stale when a tool it uses changed or
 * was removed (`harness/stale.ts`). The pipeline then runs on a spec of only the changed and
 * added tools, into a scratch folder under the harness's `.cache` (sharing its LLM reply cache,
 * so an interrupted run resumes), asking for as many simple and complex scenarios as there were
 * stale records of each tier, plus one simple scenario per added tool. Its records are merged
 * into the harness: on a complete run the stale records are removed; on a partial run they stay
 * (the tree still marks them stale) beside the new ones; a failed or cancelled run leaves the
 * harness untouched. The manifest says what changed (`drift`).
 */
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { FileReadError } from '../boundedRead';
import { ensureFolderInside, readFileInside, removeFileInside, removeFolderInside } from '../containment';
import type { HarnessManifest, HarnessRecord, SpecDrift } from '../harness/format';
import { specHashOnce, toolHashes } from '../harness/hash';
import { claimOutputFolder, OutputFolderError } from '../harness/outputFolder';
import { diffSpecs, sameTools, type SpecDiff } from '../harness/specDiff';
import { staleTools } from '../harness/stale';
import { HARNESS_SPEC_FILE, readHarness, recordFileStem, RECORDS_DIR, writeManifest, writeRecord } from '../harness/store';
import type { Spec } from '../spec/model';
import { loadSpecText } from '../spec/snapshot';
import { CACHE_DIR } from '../workspace/layout';
import { mergeCounts } from './llm/counts';
import { ZERO_LLM } from './progress';
import { callableTools, runPipeline } from './runner';
import { finalResult, type PipelineResult, type RunPipelineOptions } from './runOptions';
import { recordCounts, writeSpecCopy } from './runWriter';

/** The scratch folder (under the harness's `.cache`) the pipeline writes the new records to. */
export const STALE_RUN_DIR = 'stale-run';

/** What {@link regenerateStale} did: the run's result (of the merged harness) and the diff it acted on. */
export interface StaleRegeneration extends PipelineResult {
  diff: SpecDiff;
  /** Records kept as they were. */
  kept: number;
  /** Stale records found (replaced on a complete run). */
  stale: number;
}

/** The spec the harness was generated from: its `spec.json` copy. */
async function earlierSpec(dir: string): Promise<Spec> {
  const file = join(dir, HARNESS_SPEC_FILE);
  let text: string;
  try {
    text = await readFileInside(dir, file);
  } catch (e) {
    if (!(e instanceof FileReadError)) throw e; // a link (ContainmentError): refused, not worked around
    const why = e instanceof FileReadError ? e.message : String(e);
    throw new OutputFolderError(`${file}: ${why}; without the spec the harness came from there is nothing to compare with: generate in full instead`);
  }
  const loaded = loadSpecText(text, file);
  if (!loaded.ok) throw new OutputFolderError(`${file}: ${loaded.problem.message}`);
  return loaded.spec;
}

/**
 * Regenerates the stale records of the harness in `options.outDir` for `options.spec` (the new
 * snapshot). `simple`/`complex` are not used: the counts come from the stale records. Throws
 * `OutputFolderError` when the folder is not a readable harness of this spec, or
 * `FolderLockedError` when another run holds it; never throws for run failures.
 */
export async function regenerateStale(options: RunPipelineOptions): Promise<StaleRegeneration> {
  const dir = resolve(options.outDir);
  const exists = await stat(join(dir, 'manifest.json')).catch(() => undefined);
  if (!exists) throw new OutputFolderError(`${dir} holds no harness (no manifest.json): generate one first`);
  const claim = await claimOutputFolder(dir, { specName: options.spec.name, force: false, purpose: 'regenerate stale' }).catch((e: unknown) => {
    // Without the offer of --force: replacing another spec's harness is a full generation, not this.
    throw e instanceof OutputFolderError ? new OutputFolderError(e.message) : e;
  });
  try {
    return await regenerateClaimed(options, dir);
  } finally {
    await claim.release();
  }
}

async function regenerateClaimed(options: RunPipelineOptions, dir: string): Promise<StaleRegeneration> {
  const started = Date.now();
  const harness = await readHarness(dir);
  const manifest = harness.manifest;
  if (!manifest)
    throw new OutputFolderError(`${join(dir, 'manifest.json')}: ${harness.problems[0]?.message ?? 'invalid manifest'}; fix it or generate in full`);
  if (manifest.status === 'running') throw new OutputFolderError(`${dir}: the last run did not finish (manifest status running): re-run it in full first`);
  const spec = options.spec;
  const diff = diffSpecs(await earlierSpec(dir), spec);
  const hashes = toolHashes(spec);
  const byId = new Map(harness.records.map((r) => [r.id, r]));
  // In the manifest's order; a record file the manifest does not list is not this harness's.
  const records = manifest.recordIds.flatMap((id) => byId.get(id) ?? []);
  const stale = records.filter((r) => staleTools(r, hashes).length > 0);
  const kept = records.filter((r) => staleTools(r, hashes).length === 0);
  const base = { diff, kept: kept.length, stale: stale.length };

  const redo = new Set([...diff.added, ...diff.changed.map((c) => c.name)]);
  const { callable, skipped } = callableTools(spec);
  const subTools = spec.tools.filter((t) => redo.has(t.name) && callable.includes(t));
  const drift = (written: number, regenerated: number): SpecDrift => ({
    fromHash: manifest.spec.hash,
    added: diff.added,
    removed: diff.removed,
    changed: diff.changed,
    kept: kept.length,
    regenerated,
    written,
  });

  // Nothing to ask a model for: the records of removed tools go, the rest stays.
  if (subTools.length === 0 || (stale.length === 0 && diff.added.length === 0)) {
    if (sameTools(diff) && stale.length === 0) {
      return { ...finalResult(manifest.status, dir, manifest, noRun(started)), ...base };
    }
    for (const r of stale) await removeFileInside(dir, join(dir, RECORDS_DIR, `${recordFileStem(r.id)}.json`));
    const next = mergedManifest(manifest, spec, kept, [], { skipped, drift: drift(0, stale.length) });
    await writeSpecCopy(dir, spec);
    await writeManifest(dir, next);
    return { ...finalResult(manifest.status, dir, next, noRun(started)), ...base };
  }

  const scratch = join(dir, CACHE_DIR, STALE_RUN_DIR);
  // Through containment.ts: a `.cache` that is a link must not have a folder removed or written where it leads.
  await removeFolderInside(dir, scratch);
  await ensureFolderInside(dir, scratch);
  const provider: RunPipelineOptions['provider'] =
    options.provider === 'offline' || 'llm' in options.provider
      ? options.provider
      : { ...options.provider, cacheDir: options.provider.cacheDir ?? join(dir, CACHE_DIR) };
  const run = await runPipeline({
    ...options,
    spec: { ...spec, tools: subTools },
    provider,
    outDir: scratch,
    simple: stale.filter((r) => r.tier === 'simple').length + diff.added.length,
    complex: stale.filter((r) => r.tier === 'complex').length,
  });
  if (run.status === 'failed' || run.status === 'cancelled' || run.status === 'pending') {
    await removeFolderInside(dir, scratch);
    return { ...run, outputDir: dir, manifest, ...base };
  }
  const made = (await readHarness(scratch)).records.filter((r) => run.manifest.recordIds.includes(r.id));
  const fresh = made.filter((r) => !kept.some((k) => k.id === r.id));
  for (const r of fresh) await writeRecord(dir, r);
  const complete = run.status === 'complete';
  // A partial run keeps the stale records beside the new ones: they are still flagged stale, and nothing is lost.
  if (complete)
    for (const r of stale) if (!fresh.some((f) => f.id === r.id)) await removeFileInside(dir, join(dir, RECORDS_DIR, `${recordFileStem(r.id)}.json`));
  const next = mergedManifest(manifest, spec, complete ? kept : [...kept, ...stale.filter((r) => !fresh.some((f) => f.id === r.id))], fresh, {
    skipped,
    drift: drift(fresh.length, complete ? stale.length : 0),
    run: run.manifest,
  });
  await writeSpecCopy(dir, spec);
  await writeManifest(dir, next);
  await removeFolderInside(dir, scratch);
  return {
    ...finalResult(next.status === 'running' ? run.status : next.status, dir, next, {
      llm: run.llm,
      wallTimeMs: Date.now() - started,
      groups: run.groups,
      chainDepth: run.chainDepth,
      maxPromptTokens: run.maxPromptTokens,
      removedStale: complete ? stale.length : 0,
      ...(run.items ? { items: run.items } : {}),
      ...(run.stopped ? { stopped: run.stopped } : {}),
      ...(run.error ? { error: run.error } : {}),
    }),
    ...base,
  };
}

/** The extra fields of a result when no model was asked. */
function noRun(started: number): Omit<PipelineResult, 'status' | 'outputDir' | 'manifest' | 'counts' | 'multiTurnRate'> {
  return { llm: ZERO_LLM, wallTimeMs: Date.now() - started, groups: 0, chainDepth: 0, maxPromptTokens: 0, removedStale: 0 };
}

/**
 * The harness's manifest after the merge: the new spec, the kept records then the new ones, counts
 * over them all, and what the run (when there was one) reports of itself.
 */
function mergedManifest(
  earlier: HarnessManifest,
  spec: Spec,
  kept: readonly HarnessRecord[],
  fresh: readonly HarnessRecord[],
  extra: { skipped: HarnessManifest['counts']['skipped']; drift: SpecDrift; run?: HarnessManifest },
): HarnessManifest {
  const run = extra.run;
  const repaired = { ...earlier.counts.repaired };
  const discarded = { ...earlier.counts.discarded };
  if (run) {
    mergeCounts(repaired, run.counts.repaired);
    mergeCounts(discarded, run.counts.discarded);
  }
  const all = [...kept, ...fresh];
  const specInfo: HarnessManifest['spec'] = { name: spec.name, source: spec.source, hash: specHashOnce(spec), toolHashes: toolHashes(spec) };
  if (spec.server?.version) specInfo.serverVersion = spec.server.version;
  const { earlierRecordIds: _, error: __, items: ___, ...rest } = earlier;
  const next: HarnessManifest = {
    ...rest,
    spec: specInfo,
    recordIds: all.map((r) => r.id),
    counts: recordCounts(spec, all, {
      repaired,
      discarded,
      coverageRound: earlier.counts.coverageRound + (run?.counts.coverageRound ?? 0),
      skipped: extra.skipped,
    }),
    drift: extra.drift,
  };
  if (run) {
    next.provider = run.provider;
    next.model = run.model;
    next.temperature = run.temperature;
    next.promptVersions = run.promptVersions;
    next.tokens = run.tokens;
    if (run.cost) next.cost = run.cost;
    else delete next.cost;
    next.timings = run.timings;
    if (run.items) next.items = run.items;
    // The harness is no better than its kept records: an earlier partial (or worse) status stands
    // after a complete stale-only run, with its reason; a full run is what retries those items.
    const earlierStands = run.status === 'complete' && earlier.status !== 'complete';
    // A stale-only run that made 0 records over a harness that keeps others is not empty: what it was asked for is missing.
    next.status = earlierStands ? earlier.status : run.status === 'empty' && next.recordIds.length > 0 ? 'partial' : run.status;
    const error = earlierStands ? earlier.error : run.error;
    if (error !== undefined) next.error = error;
  }
  return next;
}
