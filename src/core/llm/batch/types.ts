/**
 * The contract between the batch engine (`batchProvider.ts`: collects calls, journals jobs, polls,
 * hands replies back) and a provider's batch API (`geminiBatch.ts`, `openaiBatch.ts`). A backend
 * only speaks its provider's wire; splitting, journaling, resuming and retries are the engine's.
 */
import type { ChatReply, ChatRequest } from '../types';

/** One call in a batch job: the request without its signal, under an id unique within the job. */
export interface BatchItem {
  /** The item's id in the job (the engine uses the request's content hash). */
  id: string;
  request: Omit<ChatRequest, 'signal'>;
}

/** Where a job is, in words common to both providers. */
export type BatchJobState = 'pending' | 'running' | 'succeeded' | 'failed' | 'expired' | 'cancelled';

/** States a job never leaves. */
export const TERMINAL_BATCH_STATES: readonly BatchJobState[] = ['succeeded', 'failed', 'expired', 'cancelled'];

/** A job as its provider reports it. */
export interface BatchJobStatus {
  state: BatchJobState;
  /** Item counts, when the provider reports them. */
  counts?: { total?: number; succeeded?: number; failed?: number };
  /** The provider's words for a failed job. */
  error?: string;
}

/**
 * One item's outcome in a job that ended. A provider answers a failed item with an HTTP-like
 * status (429, 500, 400 …): the engine turns it into an `LlmHttpError`, so the retry policy that
 * governs synchronous calls governs batch items too.
 */
export type BatchItemResult =
  | { id: string; ok: true; reply: ChatReply }
  | {
      id: string;
      ok: false;
      status: number;
      message: string;
      /** false: the job never ran the item (it was cancelled or expired first), so it took no model call. */
      ran?: false;
    };

/** What one job may hold; the engine splits a round into jobs within these. */
export interface BatchLimits {
  /** Items per job. */
  maxItems: number;
  /** Bytes of a job's input (the JSONL file, or the inline request). */
  maxBytes: number;
}

/** A provider's batch API, one operation per method; no retries, no journaling. */
export interface BatchBackend {
  /** Provider family, as `ChatProvider.id` (the reply cache keys on it). */
  readonly id: string;
  /** Model, as `ChatProvider.model`. */
  readonly model: string;
  readonly limits: BatchLimits;
  /** Bytes the item adds to a job's input, for splitting before the provider would refuse. */
  itemBytes(item: BatchItem): number;
  /**
   * Creates one job holding `items`, named `displayName` where the provider keeps a name (so
   * {@link find} can recover a job whose creation was not journaled before a kill). Resolves with
   * the provider's job name. Throws `LlmHttpError` / `LlmNetworkError` like a provider call.
   */
  submit(items: readonly BatchItem[], displayName: string, signal: AbortSignal): Promise<string>;
  /** The job created under `displayName`, if the provider has one. */
  find(displayName: string, signal: AbortSignal): Promise<string | undefined>;
  /** The job's state now. */
  status(job: string, signal: AbortSignal): Promise<BatchJobStatus>;
  /** The outcomes of the items a job that ended holds results for (all of them, or some when it expired or was cancelled). */
  results(job: string, signal: AbortSignal): Promise<BatchItemResult[]>;
  /** Asks the provider to cancel the job. */
  cancel(job: string, signal: AbortSignal): Promise<void>;
}
