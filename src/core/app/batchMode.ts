/**
 * Batch mode, the one recipe both commands (generate, judge) and both front ends use: the
 * synchronous provider wrapped in the batch engine (`llm/batch/batchProvider.ts`), its journal in
 * `<cacheDir>/batch/<provider>-<model>`, and call limits that let a whole round reach the engine together. The
 * wrapper keeps the provider's id and model, so batch and synchronous runs share one reply cache.
 */
import { join } from 'node:path';
import { BatchProvider, createBatchBackend, type BatchEvent } from '../llm/batch';
import { LlmConfigError, type CallLimits, type ChatProvider, type ProviderConfig } from '../llm';
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
  /** Where `AGENT_SEER_BATCH_POLL_MS` is read (the process's environment): see {@link batchPollOverride}. */
  env?: Readonly<Record<string, string | undefined>>;
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
 * `AGENT_SEER_BATCH_POLL_MS`: one wait between polls of a job, for batch endpoints that answer at
 * once (a local server, the tests' fakes); the providers' own jobs take minutes and are polled
 * from 5 s with backoff. Throws `LlmConfigError` for a value that is not a whole number ≥ 1.
 */
export function batchPollOverride(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 1) throw new LlmConfigError(`AGENT_SEER_BATCH_POLL_MS takes a whole number of milliseconds ≥ 1, got "${raw}"`);
  return ms;
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
  const poll = batchPollOverride(options.env?.AGENT_SEER_BATCH_POLL_MS);
  const chat = new BatchProvider({
    backend: createBatchBackend(options.config),
    dir: batchJournalDir(options.cacheDir, options.sync),
    wait: options.wait,
    ...(options.retry === 'sync' ? { sync: options.sync } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(options.statusFolder !== undefined ? { statusFolder: options.statusFolder } : {}),
    ...(poll !== undefined ? { firstPollMs: poll, maxPollMs: poll } : {}),
  });
  return { chat, limits: { concurrency: BATCH_CONCURRENCY, timeoutMs: BATCH_CALL_TIMEOUT_MS }, concurrency: BATCH_CONCURRENCY };
}

/** An event of the batch engine in words, for a progress line or the log (both front ends). */
export function describeBatchEvent(e: BatchEvent): string {
  switch (e.type) {
    case 'submitted':
      return `submitted ${e.job} (${e.items} item${e.items === 1 ? '' : 's'})`;
    case 'resumed':
      return `resumed ${e.job} (${e.items} item${e.items === 1 ? '' : 's'})`;
    case 'polled':
      return `${e.job} is ${e.state}`;
    case 'ended':
      return `${e.job} ended ${e.state} (${e.counts.succeeded} succeeded, ${e.counts.failed} failed)`;
  }
}
