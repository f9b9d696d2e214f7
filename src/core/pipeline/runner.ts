/**
 * `runPipeline`: a spec in, a harness folder out, with progress, cancellation and resume.
 *
 * - **offline** runs the deterministic offline generator (`runOffline.ts`) and writes its records
 *   one by one (same seed → byte-identical records).
 * - **LLM** runs stream: each tool's interpretation, then each group's scenario batches as soon
 *   as its tools are interpreted, each accepted scenario's mock outputs and turn split as soon
 *   as it is accepted, and each record the moment it is complete. Calls share one
 *   `StructuredLlm` (concurrency, rate limit, retries) and its disk cache. The run's state and
 *   its steps live in `llmRun.ts`; `runLlm` below is the order they happen in.
 *
 * Resume: every LLM reply is cached under `<outDir>/.cache/llm` (with the ledger of what was
 * repaired or salvaged under `<outDir>/.cache/ledger`), record ids are derived from content, and
 * writes are atomic; so a cancelled or crashed run, re-run with the same inputs, repeats no
 * finished call, loses no record and duplicates none, and an unchanged re-run makes no call.
 * The manifest goes `running` → `complete` | `partial` | `cancelled` | `failed`. An LLM run is
 * judged by what became of its items (`runHealth.ts`): one in which no item was made by the model
 * fails, one with too many failed, discarded or offline-filled items is `partial`, and a quota
 * error stops the run at once (`partial` when records were made, else `failed`).
 */
import { join, resolve } from 'node:path';
import type { SkippedTool } from '../harness/format';
import { createLlmClient } from '../llm/client';
import { CACHE_DIR } from '../workspace/layout';
import { LlmStats, type CallLimits, type ChatProvider, type StructuredLlm } from '../llm';
import type { Spec, Tool } from '../spec/model';
import { generateScenarios } from './llm/scenarios';
import { skipIfDuplicate } from './duplicateTools';
import { DEFAULT_GROUPING } from './llm/grouping';
import { claimOutputFolder } from '../harness/outputFolder';
import { compileSchema } from '../checks/validateCall';
import { expansionReason } from '../checks/schemaExpansion';
import { LlmRun } from './llmRun';
import { runOffline } from './runOffline';
import type { PipelineResult, RunPipelineOptions } from './runOptions';

// Defaults, the rate-limit window and the cache folder's name live in workspace/; re-exported for existing callers.
export { DEFAULT_COMPLEX, DEFAULT_SEED, DEFAULT_SIMPLE, RPM_WINDOW_MS } from '../workspace/defaults';
export { CACHE_DIR } from '../workspace/layout';
// The run's parts, re-exported: callers import from `pipeline/runner`.
export { GENERATION_TEMPLATES } from './llmRun';
export type { PipelineLlmCounts, PipelineProgress, PipelineStage } from './progress';
export type { PipelineLlmProvider, PipelineResult, RunPipelineOptions } from './runOptions';

import { DEFAULT_COVERAGE_ROUNDS } from '../workspace/defaults';
export { DEFAULT_COVERAGE_ROUNDS };

/** Builds a client for the pipeline (the shared recipe in llm/client.ts): its cache under `<cacheDir or outDir/.cache>/llm`. */
export function createPipelineLlm(options: {
  chat: ChatProvider;
  outDir: string;
  cacheDir?: string;
  concurrency?: number;
  rpm?: number;
  limits?: CallLimits;
  stats?: LlmStats;
  retryDiscarded?: boolean;
}): {
  llm: StructuredLlm;
  cacheDir: string;
} {
  return createLlmClient({
    chat: options.chat,
    role: 'generate',
    cacheDir: options.cacheDir ?? join(options.outDir, CACHE_DIR),
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.rpm !== undefined ? { rpm: options.rpm } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.stats ? { stats: options.stats } : {}),
    ...(options.retryDiscarded ? { retryDiscarded: true } : {}),
  });
}

/** Tools the LLM stages can use, and the others with why (duplicates, unusable schemas). */
export function callableTools(spec: Spec): { callable: Tool[]; skipped: SkippedTool[] } {
  const callable: Tool[] = [];
  const skipped: SkippedTool[] = [];
  const seen = new Set<string>();
  for (const tool of spec.tools) {
    const duplicate = skipIfDuplicate(seen, tool.name);
    if (duplicate) {
      skipped.push(duplicate);
      continue;
    }
    // Too large expanded first: the LLM stages build response schemas from it as trees.
    const tooLarge =
      expansionReason(tool.inputSchema ?? {}, 'inputSchema') ?? (tool.outputSchema != null ? expansionReason(tool.outputSchema, 'outputSchema') : undefined);
    const compiled = tooLarge ? undefined : compileSchema(tool.inputSchema ?? {});
    if (tooLarge) skipped.push({ tool: tool.name, reason: tooLarge });
    else if (compiled && !compiled.ok) skipped.push({ tool: tool.name, reason: `inputSchema cannot be compiled: ${compiled.message}` });
    else callable.push(tool);
  }
  return { callable, skipped };
}

/**
 * Runs the pipeline. Never throws for run failures: they come back as `status: 'failed'`. Throws
 * before anything is written when the output folder must not be used (`OutputFolderError`: a
 * file, a folder that is not a harness, another spec's harness) or another run holds it
 * (`FolderLockedError`).
 */
export async function runPipeline(options: RunPipelineOptions): Promise<PipelineResult> {
  const claim = await claimOutputFolder(resolve(options.outDir), { specName: options.spec.name, force: options.force === true, purpose: 'generate' });
  try {
    if (options.provider === 'offline') return await runOffline(options, claim.earlierRecordIds);
    const p = options.provider;
    if ('llm' in p) return await runLlm(options, p.llm, p.cacheDir !== undefined ? resolve(p.cacheDir) : undefined, claim.earlierRecordIds);
    const built = createPipelineLlm({
      chat: p.chat,
      outDir: options.outDir,
      cacheDir: p.cacheDir,
      concurrency: options.concurrency,
      rpm: options.rpm,
      limits: p.limits,
      ...(options.retryDiscarded ? { retryDiscarded: true } : {}),
      // The progress and summary figures are priced from the same table as the manifest's cost.
      ...(options.cost?.prices ? { stats: new LlmStats(options.cost.prices.table) } : {}),
    });
    return await runLlm(options, built.llm, built.cacheDir, claim.earlierRecordIds);
  } finally {
    await claim.release();
  }
}

/** The LLM run in order: stage 2 drives stages 1, 3 and 4 through the run's callbacks; then the run is judged and its manifest written. */
async function runLlm(o: RunPipelineOptions, llm: StructuredLlm, cacheDir: string | undefined, earlier: readonly string[]): Promise<PipelineResult> {
  const { callable, skipped } = callableTools(o.spec);
  const run = await LlmRun.start(o, llm, cacheDir, skipped, earlier);
  let groups = 0;
  let maxPromptTokens = 0;
  try {
    const stage2 = await generateScenarios(run.ctx, callable, {
      simple: run.requested.simple,
      complex: run.requested.complex,
      promptTokenBudget: o.promptTokenBudget ?? DEFAULT_GROUPING.promptTokenBudget,
      maxGroupTools: o.maxGroupTools ?? DEFAULT_GROUPING.maxGroupTools,
      coverageRounds: o.coverageRounds ?? DEFAULT_COVERAGE_ROUNDS,
      interpretation: (tool) => run.interpretation(tool),
      onScenario: (a) => run.accept(a),
      onBatch: (event) => (event === 'planned' ? run.progress.add('scenarios') : run.progress.done('scenarios')),
    });
    groups = stage2.groups.length;
    maxPromptTokens = Math.max(0, ...stage2.promptTokens);
  } catch (e) {
    run.fail(e);
  }
  await run.settle();

  const verdict = run.verdict();
  const recordIds = run.recordIds();
  // Only a complete run may drop the records of earlier runs it did not make again.
  const removedStale = verdict.status === 'complete' ? await run.writer.removeStale(recordIds) : 0;
  await run.writer.finish(run.finalManifest(verdict, recordIds));
  return run.result(verdict, { groups, maxPromptTokens, removedStale });
}
