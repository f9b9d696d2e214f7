/**
 * OpenAI-compatible chat completions (OpenAI, Azure's v1 endpoint, Ollama, vLLM, LM Studio,
 * llama.cpp server) with a `json_schema` response format. The client's own retries are off
 * (`maxRetries: 0`) so the CallGuard governs.
 */
import OpenAI from 'openai';
import { causeText, clip, isAbortError, LlmHttpError, LlmNetworkError, LlmTimeoutError, namesExhaustedQuota, parseRetryAfter, redact } from './errors';
import { isStrictCompatible } from './jsonSchema';
import { urlSecrets, urlWithoutCredentials } from '../spec/maskSecrets';
import type { ToolCallingProvider, ToolTurnReply, ToolTurnRequest } from './toolCalling';
import type { ChatProvider, ChatReply, ChatRequest } from './types';
import { quotaScopeOf, type QuotaScope } from './sharedQuota';
import { MAX_LLM_REPLY_BYTES } from '../bounds';
import { boundedFetch } from './boundedFetch';

/** OpenAI's own endpoint, the default base URL. */
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
/** Default model on OpenAI's endpoint (local servers need an explicit model). */
export const DEFAULT_OPENAI_MODEL = 'gpt-4o-mini';

/** Options of {@link OpenAICompatibleProvider}. */
export interface OpenAIProviderOptions {
  /** Model name as the server knows it (`llama3.1:8b`, `gpt-4o-mini`, …). */
  model: string;
  /** Endpoint root including `/v1`. Default OpenAI's. */
  baseUrl?: string;
  /** Bearer key; local servers usually need none. */
  apiKey?: string;
  /**
   * `strict` of the json_schema response format: `'auto'` (default) sets it only when the
   * schema meets OpenAI's strict-mode rules, which would otherwise reject the request.
   */
  strict?: boolean | 'auto';
  /** Extra body fields (e.g. `{max_tokens: 4096}` or a server's own options). */
  extraBody?: Record<string, unknown>;
}

/** A chat-completions endpoint as a {@link ChatProvider}. */
export class OpenAICompatibleProvider implements ChatProvider, ToolCallingProvider {
  readonly id = 'openai';
  readonly model: string;
  readonly supportsJsonSchema = true;
  readonly baseUrl: string;
  readonly toolSchemas = 'json-schema';
  readonly endpoint: string;
  readonly quotaScope: QuotaScope;
  private readonly client: OpenAI;
  private readonly apiKey: string | undefined;
  private readonly strict: boolean | 'auto';
  private readonly extraBody: Record<string, unknown>;

  constructor(options: OpenAIProviderOptions) {
    this.model = options.model;
    this.baseUrl = options.baseUrl ?? OPENAI_DEFAULT_BASE_URL;
    // Never a credential: the endpoint is part of cache entries written to disk.
    this.endpoint = urlWithoutCredentials(this.baseUrl);
    this.apiKey = options.apiKey;
    this.quotaScope = quotaScopeOf('openai', urlWithoutCredentials(this.baseUrl), options.apiKey);
    this.strict = options.strict ?? 'auto';
    this.extraBody = options.extraBody ?? {};
    this.client = openaiClient(this.baseUrl, options.apiKey, MAX_LLM_REPLY_BYTES);
  }

  async complete(request: ChatRequest): Promise<ChatReply> {
    const body = chatCompletionBody(request, { model: this.model, strict: this.strict, extraBody: this.extraBody });
    try {
      return chatReplyOf(await this.client.chat.completions.create(body, { signal: request.signal, maxRetries: 0 }));
    } catch (e) {
      throw translateOpenAIError(e, request.signal, this.baseUrl, this.apiKey);
    }
  }

  /**
   * One turn of a tool-calling conversation: `tools` as functions, calls from the reply's
   * `tool_calls` (arguments arrive as JSON text; text that is not JSON is kept as the raw string,
   * for the mock to refuse), results as `tool` messages.
   */
  async completeWithTools(request: ToolTurnRequest): Promise<ToolTurnReply> {
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [...(request.system ? [{ role: 'system' as const, content: request.system }] : [])];
    for (const m of request.messages) {
      if (m.role === 'user') messages.push({ role: 'user', content: m.content });
      else if (m.role === 'assistant')
        messages.push({
          role: 'assistant',
          content: m.content || null,
          ...(m.calls.length
            ? {
                tool_calls: m.calls.map((c) => ({
                  id: c.id,
                  type: 'function' as const,
                  function: { name: c.name, arguments: JSON.stringify(c.arguments ?? {}) },
                })),
              }
            : {}),
        });
      else
        for (const r of m.results) messages.push({ role: 'tool', tool_call_id: r.callId, content: JSON.stringify(r.isError ? { error: r.output } : r.output) });
    }
    const tools = request.tools.map((t) => ({
      type: 'function' as const,
      function: { name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.parameters },
    }));
    const completion = await this.create({ messages, temperature: request.temperature, tools }, request.signal);
    const choice = completion.choices?.[0];
    const calls = (choice?.message?.tool_calls ?? []).flatMap((c, i) => {
      if (c.type !== 'function') return [];
      let args: unknown;
      try {
        args = JSON.parse(c.function.arguments || '{}');
      } catch {
        args = c.function.arguments;
      }
      return [{ id: c.id || `call-${i}`, name: c.function.name, arguments: args }];
    });
    return {
      text: choice?.message?.content ?? '',
      calls,
      usage: { inputTokens: completion.usage?.prompt_tokens ?? 0, outputTokens: completion.usage?.completion_tokens ?? 0 },
      finishReason: choice?.finish_reason ?? undefined,
    };
  }

  /** One non-streaming chat completion with the extra body, our model, no SDK retries, and typed errors. */
  private async create(
    params: Omit<OpenAI.Chat.ChatCompletionCreateParamsNonStreaming, 'model' | 'stream'>,
    signal: AbortSignal,
  ): Promise<OpenAI.Chat.ChatCompletion> {
    try {
      return await this.client.chat.completions.create(
        { ...this.extraBody, ...params, model: this.model, stream: false } as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
        {
          signal,
          maxRetries: 0,
        },
      );
    } catch (e) {
      throw translateOpenAIError(e, signal, this.baseUrl, this.apiKey);
    }
  }
}

/** The client's own timeout: a backstop behind the CallGuard's per-call timeout. */
const OPENAI_CLIENT_TIMEOUT_MS = 30 * 60_000;

/** The `openai` client for an endpoint: its retries off (the CallGuard governs), no OPENAI_* variables read. */
export function openaiClient(baseUrl: string, apiKey: string | undefined, maxReplyBytes?: number): OpenAI {
  return new OpenAI({
    // A synchronous reply is read at most up to maxReplyBytes (boundedFetch.ts); batch files are not.
    ...(maxReplyBytes !== undefined ? { fetch: boundedFetch(globalThis.fetch, maxReplyBytes, 'OpenAI-compatible') } : {}),
    baseURL: baseUrl,
    // The client insists on a key; keyless local servers ignore the placeholder.
    apiKey: apiKey ?? 'no-key',
    maxRetries: 0,
    // Our CallGuard enforces the per-call timeout through the signal; this is only a backstop.
    timeout: OPENAI_CLIENT_TIMEOUT_MS,
    // Keep the client from reading OPENAI_* variables behind our back.
    organization: null,
    project: null,
  });
}

/**
 * The chat-completions body of a request: the extra body, the messages (system first), the
 * temperature, the json_schema response format and the model. The one home of the body, so a
 * synchronous call and a batch item (`batch/openaiBatch.ts`) send the same thing.
 */
export function chatCompletionBody(
  request: Omit<ChatRequest, 'signal'>,
  options: { model: string; strict: boolean | 'auto'; extraBody: Record<string, unknown> },
): OpenAI.Chat.ChatCompletionCreateParamsNonStreaming {
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
    ...(request.system ? [{ role: 'system' as const, content: request.system }] : []),
    ...request.messages.map((m) => ({ role: m.role, content: m.content })),
  ];
  const schema = request.jsonSchema;
  const responseFormat: OpenAI.Chat.ChatCompletionCreateParams['response_format'] = schema
    ? {
        type: 'json_schema',
        json_schema: { name: 'reply', schema, strict: options.strict === 'auto' ? isStrictCompatible(schema) : options.strict },
      }
    : undefined;
  return {
    ...options.extraBody,
    messages,
    temperature: request.temperature,
    ...(responseFormat ? { response_format: responseFormat } : {}),
    model: options.model,
    stream: false,
  };
}

/** A chat completion as a {@link ChatReply}: the first choice's text (or refusal), usage, finish reason. */
export function chatReplyOf(completion: OpenAI.Chat.ChatCompletion): ChatReply {
  const choice = completion.choices?.[0];
  return {
    text: choice?.message?.content ?? choice?.message?.refusal ?? '',
    usage: { inputTokens: completion.usage?.prompt_tokens ?? 0, outputTokens: completion.usage?.completion_tokens ?? 0 },
    finishReason: choice?.finish_reason ?? undefined,
  };
}

/** SDK errors to our typed errors (the key redacted from messages); aborts pass through untouched. */
export function translateOpenAIError(e: unknown, signal: AbortSignal, baseUrl: string, apiKey: string | undefined): unknown {
  if (signal.aborted || e instanceof OpenAI.APIUserAbortError || isAbortError(e)) return e;
  if (e instanceof OpenAI.APIConnectionTimeoutError) return new LlmTimeoutError(OPENAI_CLIENT_TIMEOUT_MS);
  if (e instanceof OpenAI.APIConnectionError) {
    // The cause quotes the URL it could not fetch: credentials in the base URL are masked there too.
    const text = `cannot reach the OpenAI-compatible endpoint ${urlWithoutCredentials(baseUrl)}: ${causeText(e.cause ?? e)}`;
    return new LlmNetworkError(redact(text, [apiKey, ...urlSecrets(baseUrl)]), { cause: e });
  }
  if (e instanceof OpenAI.APIError && typeof e.status === 'number') {
    const headers = e.headers;
    const ms = headers?.get('retry-after-ms');
    const retryAfterMs = ms && /^\d+(\.\d+)?$/.test(ms.trim()) ? Math.round(Number(ms)) : parseRetryAfter(headers?.get('retry-after'));
    return new LlmHttpError({
      status: e.status,
      message: redact(clip(`OpenAI-compatible ${e.status}: ${e.message}`), [apiKey, ...urlSecrets(baseUrl)]),
      retryAfterMs,
      quotaExhausted: namesExhaustedQuota(`${String(e.code ?? '')} ${e.message}`),
    });
  }
  if (e instanceof OpenAI.OpenAIError) {
    // e.g. a 2xx body that is not a chat completion: a misbehaving server, worth a retry.
    return new LlmHttpError({ status: 502, message: redact(clip(`OpenAI-compatible endpoint: ${e.message}`), [apiKey, ...urlSecrets(baseUrl)]) });
  }
  return e;
}
