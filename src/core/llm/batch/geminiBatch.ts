/**
 * Gemini's Batch API through `@google/genai` as a {@link BatchBackend}. Each item is the same
 * generateContent request the synchronous {@link GeminiProvider} sends (`generateContentRequest`),
 * and each item's reply is read the same way (`readGenerateContentReply`), so a batch run and a
 * synchronous run of the same calls get the same replies. HTTP errors pass through the same fetch
 * wrapper (`geminiFetch`): `LlmHttpError` with the server's wait, a bad key as fatal.
 *
 * A job small enough goes inline (the requests in the create call, results in the job); a larger
 * one goes as a JSONL file through the Files API (`{"key", "request"}` lines, results as a JSONL
 * file of `{"key", "response"}` / `{"key", "error"}` lines).
 *
 * The SDK's `batches.get` keeps the state and the output but drops `batchStats` and the job's
 * `error` (it maps them for Vertex only), so `status` also reads the raw answer of the same call.
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { BatchJob, GenerateContentResponse, GoogleGenAI as GoogleGenAIClient, InlinedResponse } from '@google/genai' with { 'resolution-mode': 'import' };
import { clip, LlmHttpError, redact } from '../errors';
import {
  createGeminiClient,
  DEFAULT_GEMINI_MODEL,
  generateContentRequest,
  geminiFetch,
  readGenerateContentReply,
  unreadableReplyError,
  type GeminiProviderOptions,
  type GeminiRequestParams,
} from '../gemini';
import type { BatchBackend, BatchItem, BatchItemResult, BatchJobState, BatchJobStatus, BatchLimits } from './types';

/**
 * Inline requests: Google's batch guide says they suit "smaller batches that keep the total request
 * size under 20MB" (https://ai.google.dev/gemini-api/docs/batch-api). Decimal megabytes, the
 * smaller reading of "20MB".
 */
export const GEMINI_INLINE_MAX_BYTES = 20_000_000;

/**
 * What one job may hold. Bytes: an input file may be up to 2 GB (the Files API's per-file maximum,
 * which the batch guide's technical details repeat as the input file size limit). Items: Google
 * publishes no per-job count (its batch quotas are in enqueued tokens per model, which this
 * contract cannot express); 10,000 keeps one job's results file and a lost job modest.
 */
export const GEMINI_BATCH_LIMITS: BatchLimits = { maxItems: 10_000, maxBytes: 2 * 1024 ** 3 };

/** The MIME type Google's batch guide uploads input files with. */
const JSONL_MIME_TYPE = 'jsonl';

/** Options of {@link GeminiBatchBackend}: those of the synchronous provider, plus limits for tests. */
export interface GeminiBatchOptions extends GeminiProviderOptions {
  /** Overrides {@link GEMINI_BATCH_LIMITS} (tests split jobs with small limits). */
  limits?: Partial<BatchLimits>;
  /** Largest job input sent inline, in bytes; larger ones go as a file. Default {@link GEMINI_INLINE_MAX_BYTES}. */
  inlineMaxBytes?: number;
}

/** Gemini's Batch API (`batches.create/get/list/cancel`, Files upload/download). */
export class GeminiBatchBackend implements BatchBackend {
  readonly id = 'gemini';
  readonly model: string;
  readonly limits: BatchLimits;
  private readonly options: GeminiBatchOptions;
  private readonly client: GoogleGenAIClient;
  private readonly extraConfig: Record<string, unknown>;
  private readonly inlineMaxBytes: number;

  constructor(options: GeminiBatchOptions) {
    this.options = options;
    this.model = options.model ?? DEFAULT_GEMINI_MODEL;
    this.extraConfig = options.extraConfig ?? {};
    this.limits = { ...GEMINI_BATCH_LIMITS, ...options.limits };
    this.inlineMaxBytes = options.inlineMaxBytes ?? GEMINI_INLINE_MAX_BYTES;
    this.client = createGeminiClient(options);
  }

  /** The bytes of the item's line in an input file (an inline item is within a few bytes of it). */
  itemBytes(item: BatchItem): number {
    return Buffer.byteLength(inputLine(item, this.extraConfig));
  }

  async submit(items: readonly BatchItem[], displayName: string, signal: AbortSignal): Promise<string> {
    const lines = items.map((item) => inputLine(item, this.extraConfig));
    // An inline item is `{"request":…,"metadata":{"key":…}}`: a line plus a dozen bytes; the envelope adds the name.
    const inlineBytes = lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 16, 512 + Buffer.byteLength(displayName));
    let job: BatchJob;
    try {
      if (inlineBytes <= this.inlineMaxBytes) {
        job = await this.client.batches.create({
          model: this.model,
          src: items.map((item) => ({ ...generateContentRequest(item.request, this.extraConfig), metadata: { key: item.id } })),
          config: { displayName, abortSignal: signal },
        });
      } else {
        // The SDK's upload takes no abort signal: a client whose fetch carries this call's signal.
        const uploader = createGeminiClient(this.options, signal);
        const file = await uploader.files.upload({ file: new Blob(lines), config: { mimeType: JSONL_MIME_TYPE, displayName } });
        if (!file.name) throw new LlmHttpError({ status: 502, message: 'Gemini stored the batch input file without naming it' });
        job = await this.client.batches.create({ model: this.model, src: file.name, config: { displayName, abortSignal: signal } });
      }
    } catch (e) {
      throw unreadableReplyError(e, signal, this.options.apiKey);
    }
    if (!job.name) throw new LlmHttpError({ status: 502, message: `Gemini created the batch job ${displayName} without naming it` });
    return job.name;
  }

  async find(displayName: string, signal: AbortSignal): Promise<string | undefined> {
    try {
      const pager = await this.client.batches.list({ config: { abortSignal: signal } });
      for await (const job of pager) if (job.displayName === displayName && job.name) return job.name;
      return undefined;
    } catch (e) {
      throw unreadableReplyError(e, signal, this.options.apiKey);
    }
  }

  async status(job: string, signal: AbortSignal): Promise<BatchJobStatus> {
    const { parsed, raw } = await this.get(job, signal);
    const state = batchJobState(parsed.state);
    if (state === undefined) {
      throw new LlmHttpError({ status: 502, message: `Gemini reported the batch job ${job} in a state this version does not know: ${String(parsed.state)}` });
    }
    const stats = raw.metadata?.batchStats;
    const count = (v: unknown): number | undefined => (v === undefined || v === null || Number.isNaN(Number(v)) ? undefined : Number(v));
    const counts = stats
      ? { total: count(stats.requestCount), succeeded: count(stats.successfulRequestCount), failed: count(stats.failedRequestCount) }
      : undefined;
    const error = raw.error?.message ?? parsed.error?.message;
    return { state, ...(counts ? { counts } : {}), ...(error ? { error: redact(clip(error), [this.options.apiKey]) } : {}) };
  }

  async results(job: string, signal: AbortSignal): Promise<BatchItemResult[]> {
    const { parsed, raw } = await this.get(job, signal);
    const inlined = parsed.dest?.inlinedResponses;
    if (inlined) return inlineResults(job, inlined, raw);
    const fileName = parsed.dest?.fileName;
    if (fileName) return this.fileResults(fileName, signal);
    return [];
  }

  async cancel(job: string, signal: AbortSignal): Promise<void> {
    checkJobName(job);
    try {
      await this.client.batches.cancel({ name: job, config: { abortSignal: signal } });
    } catch (e) {
      throw unreadableReplyError(e, signal, this.options.apiKey);
    }
  }

  /** `batches.get`, with the raw Operation the SDK read it from (for what the SDK drops). */
  private async get(job: string, signal: AbortSignal): Promise<{ parsed: BatchJob; raw: RawOperation }> {
    checkJobName(job);
    let raw: RawOperation = {};
    const fetchFn = geminiFetch(this.options.apiKey);
    const tap = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const res = await fetchFn(input, init);
      // An unreadable body is the SDK's to report (as a 502); here it only means no extra fields.
      const body: unknown = await res
        .clone()
        .json()
        .catch(() => undefined);
      raw = body !== null && typeof body === 'object' ? body : {};
      return res;
    };
    try {
      const parsed = await this.client.batches.get({ name: job, config: { abortSignal: signal, httpOptions: { fetch: tap } } });
      return { parsed, raw };
    } catch (e) {
      throw unreadableReplyError(e, signal, this.options.apiKey);
    }
  }

  /** Downloads a results file (the SDK writes it to a path) and reads it line by line. */
  private async fileResults(fileName: string, signal: AbortSignal): Promise<BatchItemResult[]> {
    const dir = await mkdtemp(join(tmpdir(), 'agent-seer-gemini-batch-'));
    try {
      const path = join(dir, 'results.jsonl');
      try {
        await this.client.files.download({ file: fileName, downloadPath: path, config: { abortSignal: signal } });
      } catch (e) {
        throw unreadableReplyError(e, signal, this.options.apiKey);
      }
      const results: BatchItemResult[] = [];
      const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
      for await (const line of lines) {
        if (line.trim() === '') continue;
        let entry: unknown;
        try {
          entry = JSON.parse(line);
        } catch {
          // A damaged line: its item fails (retried like a bad reply) if its key can still be read; else it has no result.
          const key = /"key"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(line)?.[1];
          if (key !== undefined)
            results.push({ id: JSON.parse(`"${key}"`) as string, ok: false, status: 502, message: 'Gemini returned an unreadable result line' });
          continue;
        }
        const key = (entry as { key?: unknown } | null)?.key;
        if (typeof key === 'string') results.push(itemResult(key, entry as ItemEntry));
      }
      return results;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/**
 * A job name the Gemini API gave (`batches/…`). Another provider's job (a journal written by an
 * OpenAI run) is refused in words, before the SDK would throw it as an unreadable response.
 */
function checkJobName(job: string): void {
  if (!/^batches\/[^/]+$/.test(job)) throw new LlmHttpError({ status: 400, message: `not a Gemini batch job: ${clip(job)}` });
}

/** Maps the SDK's job states (and the API's `BATCH_STATE_*` names, should one pass through) to the contract's. */
export function batchJobState(state: string | undefined): BatchJobState | undefined {
  return state === undefined ? undefined : STATES[state.replace(/^BATCH_STATE_/, 'JOB_STATE_')];
}

const STATES: Record<string, BatchJobState> = {
  JOB_STATE_QUEUED: 'pending',
  JOB_STATE_PENDING: 'pending',
  JOB_STATE_PAUSED: 'pending',
  JOB_STATE_RUNNING: 'running',
  JOB_STATE_UPDATING: 'running',
  JOB_STATE_SUCCEEDED: 'succeeded',
  // Vertex's name for a job some of whose items failed: those come back as item errors.
  JOB_STATE_PARTIALLY_SUCCEEDED: 'succeeded',
  JOB_STATE_FAILED: 'failed',
  JOB_STATE_EXPIRED: 'expired',
  JOB_STATE_CANCELLING: 'cancelled',
  JOB_STATE_CANCELLED: 'cancelled',
};

/**
 * An item's error status as HTTP. Google's per-item errors are `google.rpc.Status`, whose `code`
 * is a gRPC code (8 = RESOURCE_EXHAUSTED); an HTTP-like code (429) is taken as it is. Unknown: 500.
 */
export function itemErrorStatus(error: { code?: unknown; status?: unknown } | undefined): number {
  const code = error?.code;
  if (typeof code === 'number' && code >= 100 && code <= 599) return code;
  if (typeof code === 'number' && GRPC_TO_HTTP[code] !== undefined) return GRPC_TO_HTTP[code];
  const byName = typeof error?.status === 'string' ? GRPC_NAME_TO_HTTP[error.status] : undefined;
  return byName ?? 500;
}

// The mapping google.rpc.Code documents for each code's HTTP equivalent.
const GRPC_TO_HTTP: Record<number, number> = {
  1: 499,
  2: 500,
  3: 400,
  4: 504,
  5: 404,
  6: 409,
  7: 403,
  8: 429,
  9: 400,
  10: 409,
  11: 400,
  12: 501,
  13: 500,
  14: 503,
  15: 500,
  16: 401,
};
const GRPC_NAME_TO_HTTP: Record<string, number> = {
  CANCELLED: 499,
  UNKNOWN: 500,
  INVALID_ARGUMENT: 400,
  DEADLINE_EXCEEDED: 504,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  PERMISSION_DENIED: 403,
  RESOURCE_EXHAUSTED: 429,
  FAILED_PRECONDITION: 400,
  ABORTED: 409,
  OUT_OF_RANGE: 400,
  UNIMPLEMENTED: 501,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  DATA_LOSS: 500,
  UNAUTHENTICATED: 401,
};

/** What the raw Operation holds beyond what the SDK keeps. */
interface RawOperation {
  metadata?: {
    batchStats?: { requestCount?: unknown; successfulRequestCount?: unknown; failedRequestCount?: unknown };
    inputConfig?: { requests?: { requests?: { metadata?: { key?: unknown } }[] } };
  };
  error?: { message?: string };
}

type ItemEntry = { response?: unknown; error?: { code?: unknown; status?: unknown; message?: unknown } };

/**
 * The same request as `generateContentRequest`'s, in the REST shape an input file holds (the SDK
 * converts it for inline requests; no SDK converts a file's lines): the system text as a
 * `Content`, the settings the SDK lifts out of the config (safety settings, tools, …) beside it,
 * every other setting in `generationConfig`. A test pins it equal to what the SDK sends.
 */
export function generateContentBody(params: GeminiRequestParams): Record<string, unknown> {
  const { systemInstruction, ...config } = params.config;
  const body: Record<string, unknown> = { contents: params.contents };
  if (typeof systemInstruction === 'string') body.systemInstruction = { role: 'user', parts: [{ text: systemInstruction }] };
  const generationConfig: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    if (REQUEST_LEVEL_KEYS.has(key)) body[key] = value;
    else generationConfig[key] = value;
  }
  body.generationConfig = generationConfig;
  return body;
}

// The config fields the SDK's generateContent converter moves to the request itself (`generateContentConfigToMldev`).
const REQUEST_LEVEL_KEYS = new Set(['safetySettings', 'tools', 'toolConfig', 'labels', 'cachedContent', 'serviceTier']);

function inputLine(item: BatchItem, extraConfig: Record<string, unknown>): string {
  return JSON.stringify({ key: item.id, request: generateContentBody(generateContentRequest(item.request, extraConfig)) }) + '\n';
}

/**
 * Inline responses, matched to items by `metadata.key`. When the API gives no keys back, they are
 * matched by position (Google: "in the same order as the input requests") against the keys of the
 * job's echoed input; with neither, the results cannot be attributed, which is said, not guessed.
 */
function inlineResults(job: string, responses: readonly InlinedResponse[], raw: RawOperation): BatchItemResult[] {
  const inputKeys = raw.metadata?.inputConfig?.requests?.requests?.map((r) => r.metadata?.key);
  return responses.map((r, i) => {
    const key = r.metadata?.key ?? inputKeys?.[i];
    if (typeof key !== 'string') {
      throw new LlmHttpError({ status: 502, message: `Gemini returned the results of batch job ${job} without the keys to match them to their requests` });
    }
    return itemResult(key, r);
  });
}

function itemResult(id: string, entry: ItemEntry): BatchItemResult {
  if (entry.error) {
    const message = typeof entry.error.message === 'string' ? entry.error.message : 'no message';
    const status = itemErrorStatus(entry.error);
    // CANCELLED (1): the job was cancelled before the item ran.
    return { id, ok: false, status, message: clip(`Gemini ${status}: ${message}`), ...(entry.error.code === 1 ? { ran: false as const } : {}) };
  }
  if (entry.response !== null && typeof entry.response === 'object') {
    // A blocked reply or one without text is still a reply: the structured layer judges it, as for a synchronous call.
    return { id, ok: true, reply: readGenerateContentReply(entry.response as GenerateContentResponse) };
  }
  return { id, ok: false, status: 502, message: 'Gemini returned a batch item with neither a response nor an error' };
}
