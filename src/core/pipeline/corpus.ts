/**
 * `runCorpus`: several specs generated in one process, one harness folder each.
 *
 * Every spec's pipeline is the ordinary `runPipeline`, so a spec's harness is what a run of that
 * spec alone writes (its records, manifest and reply cache under its own folder). What the specs
 * share is the account: one chat provider and one `CallGuard`, so `concurrency` and `rpm` bound
 * the corpus, not each spec, and a quota stop stops every spec (the quota is the account's).
 * LLM runs go side by side, so a provider that gathers calls into batch jobs gets items of
 * several specs in one job; offline runs go one after another (they use no network and only
 * compete for the CPU).
 *
 * One spec's trouble does not stop the others: a refused or locked output folder, or a run that
 * throws, comes back as that spec's `refused` or `error` outcome while the rest run on.
 */
import { join } from 'node:path';
import { createCallGuard, createLlmClient } from '../llm/client';
import { ContainmentError } from '../containment';
import { FolderLockedError } from '../harness/lock';
import { OutputFolderError } from '../harness/outputFolder';
import type { CallLimits, ChatProvider } from '../llm';
import type { Spec } from '../spec/model';
import { CACHE_DIR } from '../workspace/layout';
import { ZERO_LLM, type PipelineLlmCounts, type PipelineProgress } from './progress';
import { runPipeline } from './runner';
import type { PipelineResult, RunPipelineOptions } from './runOptions';

/** One spec of a corpus and where its harness goes. */
export interface CorpusEntry {
  spec: Spec;
  /** The spec's harness folder. */
  outDir: string;
  /** Its reply cache; default `<outDir>/.cache`, as for a single run. */
  cacheDir?: string;
}

/** Options of {@link runCorpus}: those of a single run, with one model for the whole corpus. */
export interface RunCorpusOptions extends Omit<RunPipelineOptions, 'spec' | 'outDir' | 'provider' | 'onProgress'> {
  /** `'offline'`, or the one provider every spec's calls go to. */
  provider: 'offline' | { chat: ChatProvider; limits?: CallLimits };
  /** Progress of the spec at `index` in the entries. */
  onProgress?: (index: number, progress: PipelineProgress) => void;
  /** The spec at `index` has ended, however it ended (for a count of specs done). */
  onSpecEnd?: (index: number, outcome: CorpusOutcome) => void;
}

/** What became of one spec. */
export type CorpusOutcome =
  | { kind: 'run'; result: PipelineResult }
  /** Its output folder was refused (`OutputFolderError`, or `ContainmentError`: a link inside it) or held by another run (`FolderLockedError`): nothing written. */
  | { kind: 'refused'; error: OutputFolderError | FolderLockedError | ContainmentError }
  /** The run threw (a bug or an environment failure): said, not hidden. */
  | { kind: 'error'; message: string };

/** The corpus run: one outcome per entry, in the entries' order. */
export interface CorpusResult {
  outcomes: CorpusOutcome[];
  wallTimeMs: number;
}

/** Runs every entry's pipeline in this process with one provider and one call guard. Never throws for one spec's failure. */
export async function runCorpus(entries: readonly CorpusEntry[], options: RunCorpusOptions): Promise<CorpusResult> {
  const now = options.now ?? Date.now;
  const started = now();
  const { provider, onProgress, onSpecEnd, ...common } = options;
  const guard =
    provider === 'offline'
      ? undefined
      : createCallGuard({
          ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
          ...(options.rpm !== undefined ? { rpm: options.rpm } : {}),
          ...(provider.limits ? { limits: provider.limits } : {}),
          // One guard for every spec: its shared window lives in the first spec's cache folder.
          chat: provider.chat,
          ...(entries[0] ? { cacheDir: entries[0].cacheDir ?? join(entries[0].outDir, CACHE_DIR) } : {}),
        });
  const one = async (entry: CorpusEntry, index: number): Promise<CorpusOutcome> => {
    const outcome = await runOne(entry, index);
    onSpecEnd?.(index, outcome);
    return outcome;
  };
  const runOne = async (entry: CorpusEntry, index: number): Promise<CorpusOutcome> => {
    const runOptions: RunPipelineOptions = {
      ...common,
      spec: entry.spec,
      outDir: entry.outDir,
      provider: 'offline',
      ...(onProgress ? { onProgress: (p: PipelineProgress) => onProgress(index, p) } : {}),
    };
    try {
      if (provider !== 'offline') {
        const built = createLlmClient({
          chat: provider.chat,
          role: 'generate',
          cacheDir: entry.cacheDir ?? join(entry.outDir, CACHE_DIR),
          guard,
          ...(options.retryDiscarded ? { retryDiscarded: true } : {}),
        });
        runOptions.provider = { llm: built.llm, cacheDir: built.cacheDir };
      }
      return { kind: 'run', result: await runPipeline(runOptions) };
    } catch (e) {
      if (e instanceof OutputFolderError || e instanceof FolderLockedError || e instanceof ContainmentError) return { kind: 'refused', error: e };
      return { kind: 'error', message: e instanceof Error ? e.message : String(e) };
    }
  };
  let outcomes: CorpusOutcome[];
  if (provider === 'offline') {
    outcomes = [];
    for (const [i, entry] of entries.entries()) outcomes.push(await one(entry, i));
  } else {
    outcomes = await Promise.all(entries.map(one));
  }
  return { outcomes, wallTimeMs: now() - started };
}

/** How many specs ended how: a run's status, or `refused` / `error` when it did not run. */
export type CorpusStatusCounts = Record<PipelineResult['status'] | 'refused' | 'error', number>;

/** The corpus's total: specs by how they ended, records written, and the LLM's accounting summed over the specs. */
export interface CorpusTotals {
  specs: number;
  records: number;
  byStatus: CorpusStatusCounts;
  llm: PipelineLlmCounts;
}

/** Sums the outcomes of a corpus run (the cost is unknown when one spec's is). */
export function corpusTotals(outcomes: readonly CorpusOutcome[]): CorpusTotals {
  const byStatus: CorpusStatusCounts = { complete: 0, partial: 0, empty: 0, pending: 0, failed: 0, cancelled: 0, refused: 0, error: 0 };
  const llm: PipelineLlmCounts = { ...ZERO_LLM };
  let records = 0;
  for (const o of outcomes) {
    if (o.kind !== 'run') {
      byStatus[o.kind]++;
      continue;
    }
    const r = o.result;
    byStatus[r.status]++;
    records += r.counts.records;
    llm.calls += r.llm.calls;
    llm.cacheHits += r.llm.cacheHits;
    llm.retries += r.llm.retries;
    llm.reasks += r.llm.reasks;
    llm.inputTokens += r.llm.inputTokens;
    llm.outputTokens += r.llm.outputTokens;
    llm.costUsd = llm.costUsd === undefined || r.llm.costUsd === undefined ? undefined : llm.costUsd + r.llm.costUsd;
  }
  return { specs: outcomes.length, records, byStatus, llm };
}
