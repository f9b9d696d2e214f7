/**
 * Gemini through `@google/genai`: `models.generateContent` with `responseMimeType:
 * 'application/json'` and `responseJsonSchema`. The SDK's own retries stay off (we never set
 * `retryOptions`) so the CallGuard governs; a fetch wrapper turns HTTP errors into
 * `LlmHttpError` with the server's requested wait, which the SDK's `ApiError` drops.
 */
import type {
  Content,
  GenerateContentConfig,
  GenerateContentResponse,
  GenerateContentResponseUsageMetadata,
  GoogleGenAI as GoogleGenAIClient,
  Part,
} from '@google/genai' with { 'resolution-mode': 'import' };
import { causeText, clip, googleRetryDelayMs, isAbortError, LlmHttpError, LlmNetworkError, namesExhaustedQuota, parseRetryAfter, redact } from './errors';
import { toGeminiSchema } from './jsonSchema';
import { urlSecrets, urlWithoutCredentials } from '../spec/maskSecrets';
import { quotaScopeOf, type QuotaScope } from './sharedQuota';
import type { ToolCallingProvider, ToolTurnReply, ToolTurnRequest } from './toolCalling';
import type { ChatProvider, ChatReply, ChatRequest } from './types';
import { MAX_LLM_REPLY_BYTES } from '../bounds';
import { boundedResponse } from './boundedFetch';

// The package's typings are ESM-only while it ships a CommonJS build too; load that build and
// borrow the types from the ESM declarations.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the CommonJS build, see above
const { GoogleGenAI } = require('@google/genai') as typeof import('@google/genai', { with: { 'resolution-mode': 'import' } });

/** The paper's generation model. */
export const DEFAULT_GEMINI_MODEL = 'gemini-2.5-flash-lite';
/** The paper's judge model. */
export const DEFAULT_GEMINI_JUDGE_MODEL = 'gemini-2.5-flash';

/** Options of {@link GeminiProvider}. */
export interface GeminiProviderOptions {
  /** The API key; sent as the `x-goog-api-key` header only. */
  apiKey: string;
  /** Model name. Default `gemini-2.5-flash-lite`. */
  model?: string;
  /** Endpoint root (e.g. `http://127.0.0.1:8787` for a local server); the SDK's default otherwise. */
  baseUrl?: string;
  /** API version path segment. Default `v1beta` (the SDK's). */
  apiVersion?: string;
  /** Passed through to `generationConfig` (e.g. `maxOutputTokens`, `thinkingConfig`). */
  extraConfig?: Record<string, unknown>;
}

/** The `contents` and `config` of a generateContent call, without the per-call abort signal. */
export interface GeminiRequestParams {
  contents: Content[];
  config: GenerateContentConfig;
}

/**
 * How a chat request becomes a generateContent call: the one home for it, so a synchronous call
 * and a batch item (`batch/geminiBatch.ts`) send the same request for the same `ChatRequest`.
 * `extraConfig` goes first so the request's own settings win over it.
 */
export function generateContentRequest(request: Omit<ChatRequest, 'signal'>, extraConfig: Record<string, unknown> = {}): GeminiRequestParams {
  return {
    contents: request.messages.map((m) => ({ role: m.role === 'assistant' ? 'model' : 'user', parts: [{ text: m.content }] })),
    config: {
      ...extraConfig,
      ...(request.system ? { systemInstruction: request.system } : {}),
      temperature: request.temperature,
      ...(request.jsonSchema ? { responseMimeType: 'application/json', responseJsonSchema: toGeminiSchema(request.jsonSchema) } : {}),
    },
  };
}

/**
 * A generateContent reply as a {@link ChatReply}: the text without thought parts, usage with the
 * thinking tokens billed as output, why it stopped (or why the prompt was blocked). A reply with
 * no text is still a reply: the structured layer judges it, as for any other text.
 */
export function readGenerateContentReply(response: GenerateContentResponse): ChatReply {
  const usage = response.usageMetadata;
  const candidate = response.candidates?.[0];
  return {
    text: textOf(candidate?.content?.parts),
    usage: usageOf(usage),
    finishReason: candidate?.finishReason ?? response.promptFeedback?.blockReason,
  };
}

/** Gemini's generateContent as a {@link ChatProvider}. */
export class GeminiProvider implements ChatProvider, ToolCallingProvider {
  readonly id = 'gemini';
  readonly model: string;
  readonly supportsJsonSchema = true;
  /** The base URL given, or the SDK's default endpoint. */
  readonly endpoint: string;
  readonly quotaScope: QuotaScope;
  private readonly client: GoogleGenAIClient;
  private readonly apiKey: string;
  private readonly extraConfig: Record<string, unknown>;

  constructor(options: GeminiProviderOptions) {
    this.apiKey = options.apiKey;
    this.quotaScope = quotaScopeOf('gemini', options.baseUrl !== undefined ? urlWithoutCredentials(options.baseUrl) : undefined, options.apiKey);
    this.model = options.model ?? DEFAULT_GEMINI_MODEL;
    this.extraConfig = options.extraConfig ?? {};
    // Never a credential: the endpoint is part of cache entries written to disk.
    this.endpoint = options.baseUrl !== undefined ? urlWithoutCredentials(options.baseUrl) : 'https://generativelanguage.googleapis.com';
    this.client = createGeminiClient(options, undefined, MAX_LLM_REPLY_BYTES);
  }

  async complete(request: ChatRequest): Promise<ChatReply> {
    const params = generateContentRequest(request, this.extraConfig);
    let response: GenerateContentResponse;
    try {
      response = await this.client.models.generateContent({ model: this.model, ...params, config: { ...params.config, abortSignal: request.signal } });
    } catch (e) {
      throw unreadableReplyError(e, request.signal, this.apiKey);
    }
    return readGenerateContentReply(response);
  }

  /**
   * One turn of a tool-calling conversation: the tools as function declarations (schemas in the
   * subset Gemini accepts), calls from the reply's `functionCall` parts. Tool results go back as
   * `functionResponse` parts (an error as `{error}`).
   */
  async completeWithTools(request: ToolTurnRequest): Promise<ToolTurnReply> {
    const contents = request.messages.map((m) => {
      if (m.role === 'user') return { role: 'user', parts: [{ text: m.content }] };
      if (m.role === 'assistant')
        return {
          role: 'model',
          parts: [
            ...(m.content ? [{ text: m.content }] : []),
            ...m.calls.map((c) => ({ functionCall: { id: c.id, name: c.name, args: (c.arguments ?? {}) as Record<string, unknown> } })),
          ],
        };
      return {
        role: 'user',
        parts: m.results.map((r) => ({ functionResponse: { id: r.callId, name: r.name, response: r.isError ? { error: r.output } : { output: r.output } } })),
      };
    });
    let response: GenerateContentResponse;
    try {
      response = await this.client.models.generateContent({
        model: this.model,
        contents,
        config: {
          ...this.extraConfig,
          ...(request.system ? { systemInstruction: request.system } : {}),
          temperature: request.temperature,
          tools: [
            {
              functionDeclarations: request.tools.map((t) => ({
                name: t.name,
                ...(t.description ? { description: t.description } : {}),
                parametersJsonSchema: t.parameters,
              })),
            },
          ],
          abortSignal: request.signal,
        },
      });
    } catch (e) {
      throw unreadableReplyError(e, request.signal, this.apiKey);
    }
    const candidate = response.candidates?.[0];
    const parts = candidate?.content?.parts ?? [];
    const text = textOf(parts);
    const calls = parts
      .filter((p) => p.functionCall?.name)
      .map((p, i) => ({ id: p.functionCall!.id ?? `call-${i}`, name: p.functionCall!.name!, arguments: p.functionCall!.args ?? {} }));
    return {
      text,
      calls,
      usage: usageOf(response.usageMetadata),
      finishReason: candidate?.finishReason ?? response.promptFeedback?.blockReason,
    };
  }
}

/**
 * The Gemini client both the synchronous provider and the batch backend use: explicit
 * `vertexai: false`, so GOOGLE_GENAI_USE_VERTEXAI in the environment cannot reroute the calls, and
 * {@link geminiFetch} under it. With `signal`, every request of the client carries it too (for the
 * SDK calls that take none, such as `files.upload`).
 */
export function createGeminiClient(
  options: Pick<GeminiProviderOptions, 'apiKey' | 'baseUrl' | 'apiVersion'>,
  signal?: AbortSignal,
  maxReplyBytes?: number,
): GoogleGenAIClient {
  const fetchFn = geminiFetch(options.apiKey, signal, maxReplyBytes);
  return new GoogleGenAI({
    apiKey: options.apiKey,
    vertexai: false,
    apiVersion: options.apiVersion,
    httpOptions: { ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}), fetch: fetchFn },
  });
}

/**
 * The SDK's fetch, with HTTP errors and network faults turned into our typed errors: the server's
 * requested wait (the SDK's `ApiError` drops it), a bad key as fatal, a daily quota as exhausted.
 */
export function geminiFetch(
  apiKey: string,
  signal?: AbortSignal,
  maxReplyBytes?: number,
): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async (input, requestInit) => {
    const init = signal ? { ...requestInit, signal: requestInit?.signal ? AbortSignal.any([requestInit.signal, signal]) : signal } : requestInit;
    let res: Response;
    try {
      // A synchronous reply is read at most up to maxReplyBytes (boundedFetch.ts); batch files are not.
      res = await fetch(input, init);
      if (maxReplyBytes !== undefined) res = boundedResponse(res, maxReplyBytes, 'Gemini');
    } catch (e) {
      if (init?.signal?.aborted || isAbortError(e)) throw e;
      // The cause quotes the URL it could not fetch: credentials in the base URL are masked there too.
      throw new LlmNetworkError(redact(`cannot reach the Gemini endpoint ${originOf(input)}: ${causeText(e)}`, [apiKey, ...urlSecrets(urlOf(input))]), {
        cause: e,
      });
    }
    if (res.ok) return res;
    const bodyText = await res.text().catch(() => '');
    let body: unknown;
    try {
      body = JSON.parse(bodyText);
    } catch {
      body = undefined;
    }
    const message = (body as { error?: { message?: unknown } } | undefined)?.error?.message;
    const detail = typeof message === 'string' ? message : bodyText;
    // Gemini answers a bad key with 400 INVALID_ARGUMENT, which would otherwise read as one bad item.
    const badKey = /API_KEY_INVALID|API key not valid|API key expired/i.test(bodyText);
    throw new LlmHttpError({
      status: res.status,
      message: redact(clip(`Gemini ${res.status}: ${detail}`), [apiKey, ...urlSecrets(urlOf(input))]),
      retryAfterMs: parseRetryAfter(res.headers.get('retry-after')) ?? googleRetryDelayMs(body),
      fatal: badKey || res.status === 401 || res.status === 403 || res.status === 404,
      // Daily quotas show in the QuotaFailure details (`…PerDayPerProjectPerModel…`), not the message.
      quotaExhausted: namesExhaustedQuota(bodyText),
    });
  };
}

/**
 * What an SDK call's failure means: our typed errors and cancellations pass through; anything else
 * is a 2xx whose body the SDK could not read, so the server misbehaved: a 502, retried.
 */
export function unreadableReplyError(e: unknown, signal: AbortSignal | undefined, apiKey: string): unknown {
  if (e instanceof LlmHttpError || e instanceof LlmNetworkError || signal?.aborted || isAbortError(e)) return e;
  return new LlmHttpError({ status: 502, message: redact(`Gemini returned an unreadable response: ${(e as Error).message}`, [apiKey]) });
}

function textOf(parts: readonly Part[] | undefined): string {
  return (parts ?? [])
    .filter((p) => typeof p.text === 'string' && p.thought !== true)
    .map((p) => p.text)
    .join('');
}

function usageOf(usage: GenerateContentResponseUsageMetadata | undefined): ChatReply['usage'] {
  return { inputTokens: usage?.promptTokenCount ?? 0, outputTokens: (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0) };
}

function urlOf(input: string | URL | Request): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
}

function originOf(input: string | URL | Request): string {
  try {
    return new URL(urlOf(input)).origin;
  } catch {
    return '(unknown)';
  }
}
