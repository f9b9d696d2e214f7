/**
 * Batch mode, the one recipe both commands (generate, judge) and both front ends use: the
 * synchronous provider wrapped in the batch engine (`llm/batch/batchProvider.ts`), its journal in
 * `<cacheDir>/batch/<provider>-<model>`, and call limits that let a whole round reach the engine together. The
 * wrapper keeps the provider's id and model, so batch and synchronous runs share one reply cache.
 */
import { join } from 'node:path';
import { BatchProvider, createBatchBackend, type BatchEvent } from '../llm/batch';
import type { CallLimits, ChatProvider, ProviderConfig } from '../llm';
import { BATCH_CALL_TIMEOUT_MS, BATCH_CONCURRENCY, type BatchRetry } from '../workspace/defaults';
import { BATCH_DIR, harnessFolderName } from '../workspace/layout';

/** How a batch run behaves. */
export interface BatchModeOptions {
  /** The provider settings the synchronous provider was built from (the backend speaks to the same endpoint with the same key). */
  config: ProviderConfig;
  /** The synchronous provider: its id and model name the wrapper; it answers retries when `retry` is `sync`. */
  sync: ChatProvider;
  /** The run's cache folder; the journal goes in its `batch/` subfolder. */
  cacheDir: string;
  /** Wait for the jobs (true) or stop with `BatchPendingError` once the round is submitted (`--no-wait`). */
  wait: boolean;
  retry: BatchRetry;
  onEvent?: (event: BatchEvent) => void;
  /** The folder `agent-seer status` should be pointed at, for the pending message (the harness or corpus folder). */
  statusFolder?: string;
  /** First and longest wait between polls of a job (defaults in workspace/defaults.ts); a local fake answers in milliseconds. */
  pollMs?: { first: number; max: number };
}

/** The wrapped provider and the limits to run it under. */
export interface BatchMode {
  chat: BatchProvider;
  /** No concurrency cap worth the name, no rate limit, no per-call timeout shorter than a job's window. */
  limits: CallLimits;
  /** The same cap, for callers that size a worker pool (the judge). */
  concurrency: number;
}

/**
 * The journal folder of one provider and model under a cache folder: one engine per model (two
 * judges in one run are two engines), each the only writer of its journal.
 */
export function batchJournalDir(cacheDir: string, provider: { id: string; model: string }): string {
  return join(cacheDir, BATCH_DIR, harnessFolderName(`${provider.id}-${provider.model}`));
}

/** Wraps `options.sync` in the batch engine. Throws `LlmConfigError` when the provider has no batch API. */
export function batchMode(options: BatchModeOptions): BatchMode {
  const chat = new BatchProvider({
    backend: createBatchBackend(options.config),
    dir: batchJournalDir(options.cacheDir, options.sync),
    wait: options.wait,
    ...(options.retry === 'sync' ? { sync: options.sync } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(options.statusFolder !== undefined ? { statusFolder: options.statusFolder } : {}),
    ...(options.pollMs ? { firstPollMs: options.pollMs.first, maxPollMs: options.pollMs.max } : {}),
  });
  return { chat, limits: { concurrency: BATCH_CONCURRENCY, timeoutMs: BATCH_CALL_TIMEOUT_MS }, concurrency: BATCH_CONCURRENCY };
}
