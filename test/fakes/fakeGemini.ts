/**
 * A fake Gemini API (`POST /{v1beta|v1}/models/{model}:generateContent`) for the real
 * `@google/genai` client: pass `fake.url` as `httpOptions.baseUrl` (or `baseUrl` to
 * `GeminiProvider` / `createProvider`). Replies use the REST shapes: `candidates[0].content.parts[0].text`,
 * `usageMetadata{promptTokenCount,candidatesTokenCount,totalTokenCount}`, and errors as
 * `{error:{code,message,status}}`.
 */
import { startFakeLlmServer, type FakeDialect, type FakeExtraRoutes, type FakeLlmServer } from './fakeLlmServer';

export type { FakeLlmServer, FakeReply, FakeRequest, FakeScript, FakeUsage } from './fakeLlmServer';

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

type Part = { text?: unknown; thought?: unknown };
type Content = { role?: unknown; parts?: Part[] };
const textOf = (c: Content | undefined): string =>
  (c?.parts ?? [])
    .filter((p) => typeof p.text === 'string' && p.thought !== true)
    .map((p) => p.text as string)
    .join('');

/** An error body as the Gemini API shapes it (`google.rpc.Status` under `error`). */
export function geminiErrorBody(status: number, message: string): unknown {
  return { error: { code: status, message, status: STATUS_NAMES[status] ?? 'UNKNOWN' } };
}

/** The real API's answer to a wrong key (400 `API_KEY_INVALID`, not 401), or undefined when it is accepted. */
export function geminiKeyError(apiKey: string | undefined, expected: string | undefined): { status: number; body: unknown } | undefined {
  if (expected === undefined || apiKey === expected) return undefined;
  return {
    status: 400,
    body: {
      error: {
        code: 400,
        message: 'API key not valid. Please pass a valid API key.',
        status: 'INVALID_ARGUMENT',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }],
      },
    },
  };
}

const geminiDialect: FakeDialect = {
  basePath: '',
  route(method, path) {
    const m = /^\/(v1beta|v1|v1alpha)\/models\/([^/:?]+):generateContent(\?.*)?$/.exec(path);
    return method === 'POST' && m ? { model: decodeURIComponent(m[2] ?? '') } : undefined;
  },
  normalise(body, headers) {
    const contents: Content[] = Array.isArray(body?.contents) ? body.contents : [];
    const key = headers['x-goog-api-key'];
    return {
      system: body?.systemInstruction ? textOf(body.systemInstruction as Content) : undefined,
      messages: contents.map((c) => ({ role: c.role === 'model' ? ('assistant' as const) : ('user' as const), content: textOf(c) })),
      temperature: body?.generationConfig?.temperature,
      jsonSchema: body?.generationConfig?.responseJsonSchema ?? body?.generationConfig?.responseSchema,
      apiKey: typeof key === 'string' ? key : undefined,
    };
  },
  checkKey: geminiKeyError,
  successBody(text, usage, finishReason, request) {
    return {
      candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: finishReason ?? 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: usage.input, candidatesTokenCount: usage.output, totalTokenCount: usage.input + usage.output },
      modelVersion: request.model,
      responseId: `fake-${request.index}`,
    };
  },
  errorBody: geminiErrorBody,
};

/**
 * Starts a fake Gemini on 127.0.0.1. With `apiKey`, requests carrying another key get the real
 * API's 400 `API_KEY_INVALID`.
 */
export function startFakeGemini(options: { apiKey?: string; extraRoutes?: FakeExtraRoutes } = {}): Promise<FakeLlmServer> {
  return startFakeLlmServer(geminiDialect, options);
}

/** A Gemini 429 body carrying `google.rpc.RetryInfo` (how the real API says how long to wait). */
export function geminiRetryInfoBody(seconds: number): unknown {
  return {
    error: {
      code: 429,
      message: 'Resource has been exhausted (e.g. check quota).',
      status: 'RESOURCE_EXHAUSTED',
      details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${seconds}s` }],
    },
  };
}
