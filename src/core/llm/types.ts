/**
 * The contracts of the LLM layer: a raw chat provider (one attempt, text out) and the
 * structured request/result that pipeline stages and the judge code against.
 */
import type { z } from 'zod';
import type { QuotaScope } from './sharedQuota';

/** Token counts of one call (or a sum of calls). */
export interface Usage {
  /** Prompt tokens, as the provider bills them. */
  inputTokens: number;
  /** Completion tokens, including any "thinking" tokens the provider bills as output. */
  outputTokens: number;
}

/** One turn of a conversation sent to a provider. The system text travels separately. */
export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** What a provider is asked for in one attempt. */
export interface ChatRequest {
  /** System instructions; providers without a system role prepend them to the first user turn. */
  system?: string;
  /** The conversation so far; the last turn is from the user. */
  messages: readonly ChatMessage[];
  /**
   * JSON Schema the reply must satisfy, for the provider's structured-output mode. Providers that
   * have none ignore it (the structured layer then puts the schema in the system text instead).
   */
  jsonSchema?: Record<string, unknown>;
  /** Sampling temperature. */
  temperature: number;
  /**
   * Which reply of this request is asked for; never sent to the model. Equal requests of
   * different samples (a re-ask of the same prompt as a new sample, a top-up) ask for replies of
   * their own, as they do of a synchronous provider sampling at this temperature: a provider that
   * answers from replies it keeps (the batch journal) keys on it. The structured layer sets it to
   * the item's cache key, which holds the sample index.
   */
  sample?: string;
  /**
   * Which waiting request gets the next free slot: higher first, in arrival order among equals.
   * Never sent, not part of any cache key. Default 0.
   */
  priority?: number;
  /**
   * Cancels the attempt. It fires on the caller's cancellation and on the per-call timeout; the
   * layer above tells them apart, so a provider only has to stop and reject.
   */
  signal: AbortSignal;
}

/** What a provider returns for one attempt. */
export interface ChatReply {
  /** The model's text (expected to be JSON when `jsonSchema` was given). */
  text: string;
  /** Billed tokens; omit when the backend cannot tell (counted as zero). */
  usage?: Usage;
  /** Why generation stopped, when the backend says (e.g. `MAX_TOKENS`, `length`, `SAFETY`). */
  finishReason?: string;
  /**
   * Model calls this reply took, when not one (the run's accounting counts them): 0 for a reply
   * a provider kept from an earlier call and hands out again (the batch journal; its usage is not
   * spent again), 2 for a batch item that failed and was answered by a synchronous retry.
   */
  modelCalls?: number;
}

/**
 * A model backend, one attempt per `complete` call. No retries, limits or timeouts here: the
 * layers above add them. An implementation must:
 * - reject promptly when `signal` aborts (any error; the caller maps it);
 * - throw `LlmHttpError` for HTTP error answers (with `retryAfterMs` when the server says),
 *   `LlmNetworkError` when the server cannot be reached; anything else is treated as a bug.
 * An adapter that can only return text (e.g. VS Code's language models) sets
 * `supportsJsonSchema: false` and ignores `jsonSchema`.
 */
export interface ChatProvider {
  /** Provider family, part of the cache key: `'gemini'`, `'openai'`, `'vscode'`, … */
  readonly id: string;
  /** Model identifier as the backend names it; part of the cache key and of cost accounting. */
  readonly model: string;
  /** Whether `jsonSchema` is enforced by the backend (structured-output mode). */
  readonly supportsJsonSchema: boolean;
  /**
   * The account its requests count against (endpoint and a hash of the key), when it has one:
   * commands and processes on the same scope share one rate window (`sharedQuota.ts`).
   */
  readonly quotaScope?: QuotaScope;
  complete(request: ChatRequest): Promise<ChatReply>;
}

/** Why an item was discarded. Content reasons come after 3 tries; transport ones after retries. */
export type DiscardReason = 'invalid-json' | 'schema' | 'semantic' | 'http' | 'timeout';

/** One structured generation: a prompt in, a value of `T` out. */
export interface StructuredRequest<T> {
  /** Pipeline stage or judge name (e.g. `'interpret'`); part of the cache key and stats. */
  stage: string;
  /** Version of the prompt template; bump it when the template changes. Part of the cache key. */
  promptVersion: string;
  /** Rendered system instructions. */
  system?: string;
  /** Rendered user prompt. */
  prompt: string;
  /** What the reply must be; its JSON Schema goes to the provider's structured-output mode. */
  schema: z.ZodType<T>;
  /**
   * The JSON Schema sent to the provider when it says more than `schema` can (per-request enums,
   * the arguments of each tool); `schema` still parses the reply. Default: `schema`'s JSON Schema.
   */
  jsonSchema?: Record<string, unknown>;
  /** Sampling temperature; defaults to the `StructuredLlm`'s default (0.7). */
  temperature?: number;
  /** Which of several samples for the same inputs (0-based); part of the cache key. Default 0. */
  sampleIndex?: number;
  /**
   * The inputs the prompt was rendered from (tool hash, tier, …), hashed into the cache key.
   * The rendered system/prompt text and the JSON Schema are hashed too, so an edited template
   * misses even without a version bump; this is where inputs that shape the call but not the
   * text belong.
   */
  cacheInputs?: unknown;
  /**
   * Semantic checks beyond the schema (e.g. "every expected call names a tool in the spec").
   * Returned messages are sent back to the model like schema errors; empty means accepted.
   */
  validate?: (value: T) => readonly string[] | Promise<readonly string[]>;
  /**
   * Whether rejected replies are cached: the discard itself (so an unchanged re-run does not ask
   * again) and each reply about to be re-asked (so a killed run replays it). Default true. The
   * judge sets false: a record it could not judge is asked afresh on every run until it is judged.
   */
  cacheRejected?: boolean;
  /** Passed on as {@link ChatRequest.priority}: when slots are scarce, who goes first. Default 0. */
  priority?: number;
}

/** The outcome of a structured generation. A discard is a value, not a throw; cancellation throws. */
export type StructuredResult<T> =
  | {
      ok: true;
      value: T;
      /** Tokens this result cost (summed over re-asks); from the cache entry when `cached`. */
      usage: Usage;
      /** Model replies it took (1–3); from the cache entry when `cached`. */
      attempts: number;
      /** Served from the disk cache: no call was made. */
      cached: boolean;
      /** Wall time of this `generate` call. */
      ms: number;
      /** The cache key (content hash); records can cite it as provenance. */
      key: string;
    }
  | {
      ok: false;
      reason: DiscardReason;
      /** What was wrong with the last reply (or the transport error), for reports. */
      errors: string[];
      attempts: number;
      usage: Usage;
      cached: boolean;
      ms: number;
      key: string;
      /** The last reply text (clipped), when there was one. */
      lastReply?: string;
    };
