/**
 * Batch mode (issue 13): the engine ({@link BatchProvider}, a `ChatProvider` that sends calls
 * through a provider's batch API and journals its jobs), the contract with a provider's batch API
 * (`types.ts`), the journal's format (`journal.ts`) and the backends.
 */
import { LlmConfigError } from '../errors';
import { geminiProviderOptions, openaiProviderOptions, type ProviderConfig } from '../factory';
import { GeminiBatchBackend } from './geminiBatch';
import { OpenAIBatchBackend } from './openaiBatch';
import type { BatchBackend } from './types';

export * from './types';
export * from './batchProvider';
export { BatchJournalError, BatchJournalJob, readJobRequests, readJobResults } from './journal';
export { OpenAIBatchBackend, OPENAI_BATCH_LIMITS, openaiBatchState, type OpenAIBatchOptions } from './openaiBatch';
export { GeminiBatchBackend, type GeminiBatchOptions } from './geminiBatch';

/** The batch backend of a provider config (key, endpoint and model resolved as for the synchronous provider). */
export function createBatchBackend(config: ProviderConfig): BatchBackend {
  if (config.provider === 'openai') return new OpenAIBatchBackend(openaiProviderOptions(config));
  if (config.provider === 'gemini') return new GeminiBatchBackend(geminiProviderOptions(config));
  throw new LlmConfigError(`Unknown provider: ${String((config as { provider: unknown }).provider)}`);
}
