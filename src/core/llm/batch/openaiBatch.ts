/**
 * OpenAI's Batch API as a {@link BatchBackend}, through the real `openai` client built as the
 * synchronous provider builds it (same base URL, key, strict mode and extra body). A job is a
 * JSONL file of chat-completions requests (`{custom_id, method, url, body}`, the body exactly as
 * `chatCompletionBody` makes it for a synchronous call) uploaded with purpose `batch`, then a
 * batch over it tagged with `metadata.agent_seer = displayName` so {@link OpenAIBatchBackend.find}
 * can recover it. Results come from the batch's output file (answered requests) and error file
 * (requests answered with an error status, or never run).
 */
import OpenAI, { toFile } from 'openai';
import { LlmHttpError } from '../errors';
import { chatCompletionBody, chatReplyOf, openaiClient, translateOpenAIError, type OpenAIProviderOptions, OPENAI_DEFAULT_BASE_URL } from '../openai';
import { isRecord } from '../../util/isRecord';
import type { BatchBackend, BatchItem, BatchItemResult, BatchJobState, BatchJobStatus, BatchLimits } from './types';

/**
 * What one OpenAI batch may hold: "up to 50,000 requests, and can be up to 200 MB in size"
 * (OpenAI API reference, Create batch, `input_file_id`:
 * https://platform.openai.com/docs/api-reference/batch/create).
 */
export const OPENAI_BATCH_LIMITS: BatchLimits = { maxItems: 50_000, maxBytes: 200 * 1024 * 1024 };

/** The endpoint every item goes to. */
const ENDPOINT = '/v1/chat/completions';
/** The metadata key that carries a job's display name. */
const NAME_KEY = 'agent_seer';

/** Options of {@link OpenAIBatchBackend}: the synchronous provider's, plus smaller limits (tests). */
export interface OpenAIBatchOptions extends OpenAIProviderOptions {
  limits?: Partial<BatchLimits>;
}

/** OpenAI's batch states in the engine's words. */
export function openaiBatchState(status: OpenAI.Batches.Batch['status']): BatchJobState {
  switch (status) {
    case 'validating':
      return 'pending';
    case 'in_progress':
    case 'finalizing':
      return 'running';
    case 'completed':
      return 'succeeded';
    case 'failed':
      return 'failed';
    case 'expired':
      return 'expired';
    case 'cancelling':
    case 'cancelled':
      return 'cancelled';
  }
}

/** The Batch API of an OpenAI(-compatible) endpoint. */
export class OpenAIBatchBackend implements BatchBackend {
  readonly id = 'openai';
  readonly model: string;
  readonly limits: BatchLimits;
  private readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly strict: boolean | 'auto';
  private readonly extraBody: Record<string, unknown>;
  private readonly client: OpenAI;

  constructor(options: OpenAIBatchOptions) {
    this.model = options.model;
    this.baseUrl = options.baseUrl ?? OPENAI_DEFAULT_BASE_URL;
    this.apiKey = options.apiKey;
    this.strict = options.strict ?? 'auto';
    this.extraBody = options.extraBody ?? {};
    this.limits = { ...OPENAI_BATCH_LIMITS, ...options.limits };
    this.client = openaiClient(this.baseUrl, options.apiKey);
  }

  itemBytes(item: BatchItem): number {
    return Buffer.byteLength(this.line(item)) + 1;
  }

  async submit(items: readonly BatchItem[], displayName: string, signal: AbortSignal): Promise<string> {
    const jsonl = items.map((i) => `${this.line(i)}\n`).join('');
    return this.call(signal, async () => {
      const file = await this.client.files.create(
        { file: await toFile(Buffer.from(jsonl, 'utf8'), `${displayName}.jsonl`, { type: 'application/jsonl' }), purpose: 'batch' },
        { signal },
      );
      const batch = await this.client.batches.create(
        { input_file_id: file.id, endpoint: ENDPOINT, completion_window: '24h', metadata: { [NAME_KEY]: displayName } },
        { signal },
      );
      return batch.id;
    });
  }

  async find(displayName: string, signal: AbortSignal): Promise<string | undefined> {
    return this.call(signal, async () => {
      // Newest first, page by page (the client follows `after`): an intent is recent.
      for await (const batch of this.client.batches.list({ limit: 100 }, { signal })) {
        if (batch.metadata?.[NAME_KEY] === displayName) return batch.id;
      }
      return undefined;
    });
  }

  async status(job: string, signal: AbortSignal): Promise<BatchJobStatus> {
    const batch = await this.call(signal, () => this.client.batches.retrieve(job, { signal }));
    const errors = batch.errors?.data?.map((e) => [e.code, e.message].filter(Boolean).join(': ')).filter((e) => e !== '');
    const counts = batch.request_counts;
    return {
      state: openaiBatchState(batch.status),
      ...(counts ? { counts: { total: counts.total, succeeded: counts.completed, failed: counts.failed } } : {}),
      ...(errors && errors.length > 0 ? { error: errors.join('; ') } : {}),
    };
  }

  async results(job: string, signal: AbortSignal): Promise<BatchItemResult[]> {
    return this.call(signal, async () => {
      const batch = await this.client.batches.retrieve(job, { signal });
      const results: BatchItemResult[] = [];
      for (const fileId of [batch.output_file_id, batch.error_file_id]) {
        if (!fileId) continue;
        const text = await (await this.client.files.content(fileId, { signal })).text();
        for (const line of text.split('\n')) if (line.trim() !== '') results.push(resultOfLine(line, job));
      }
      return results;
    });
  }

  async cancel(job: string, signal: AbortSignal): Promise<void> {
    await this.call(signal, () => this.client.batches.cancel(job, { signal }));
  }

  /** One input line: the item's id and the body a synchronous call would send. */
  private line(item: BatchItem): string {
    const body = chatCompletionBody(item.request, { model: this.model, strict: this.strict, extraBody: this.extraBody });
    return JSON.stringify({ custom_id: item.id, method: 'POST', url: ENDPOINT, body });
  }

  /** Runs client calls, translating their errors as the synchronous provider does. */
  private async call<T>(signal: AbortSignal, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (e) {
      throw translateOpenAIError(e, signal, this.baseUrl, this.apiKey);
    }
  }
}

/**
 * One line of an output or error file: `{id, custom_id, response: {status_code, request_id,
 * body}, error}`. A 200 response is the item's chat completion; another status is the item's
 * error; `response: null` with an `error` is a request the batch never ran (expired, cancelled).
 */
function resultOfLine(line: string, job: string): BatchItemResult {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new LlmHttpError({ status: 502, message: `OpenAI batch ${job}: a result line is not JSON` });
  }
  const id = isRecord(value) && typeof value.custom_id === 'string' ? value.custom_id : undefined;
  if (!isRecord(value) || id === undefined) throw new LlmHttpError({ status: 502, message: `OpenAI batch ${job}: a result line has no custom_id` });
  const response = isRecord(value.response) ? value.response : undefined;
  const status = typeof response?.status_code === 'number' ? response.status_code : undefined;
  if (response && status !== undefined && status >= 200 && status < 300 && isRecord(response.body)) {
    return { id, ok: true, reply: chatReplyOf(response.body as unknown as OpenAI.Chat.ChatCompletion) };
  }
  if (response && status !== undefined) {
    const body = isRecord(response.body) && isRecord(response.body.error) ? response.body.error : undefined;
    const message = typeof body?.message === 'string' ? body.message : `HTTP ${status}`;
    return { id, ok: false, status, message: `OpenAI-compatible ${status}: ${message}` };
  }
  const error = isRecord(value.error) ? value.error : undefined;
  const words = [error?.code, error?.message].filter((w) => typeof w === 'string' && w !== '').join(': ');
  // Never run (the batch expired or was cancelled first): transient, a later job may run it.
  return { id, ok: false, status: 503, message: `OpenAI batch ${job} did not run this request${words ? ` (${words})` : ''}`, ran: false };
}
