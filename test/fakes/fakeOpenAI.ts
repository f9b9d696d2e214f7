/**
 * A fake OpenAI-compatible chat-completions server (`POST /v1/chat/completions`) for the real
 * `openai` client: pass `fake.url` (which ends in `/v1`) as `baseURL`. Replies use the API's
 * shapes: `choices[0].message.content`, `usage{prompt_tokens,completion_tokens,total_tokens}`, and
 * errors as `{error:{message,type,param,code}}`.
 */
import { startFakeLlmServer, type FakeDialect, type FakeExtraRoutes, type FakeLlmServer } from './fakeLlmServer';

export type { FakeLlmServer, FakeReply, FakeRequest, FakeScript, FakeUsage } from './fakeLlmServer';

type Message = { role?: unknown; content?: unknown };
const contentText = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((p: { text?: unknown }) => (typeof p?.text === 'string' ? p.text : '')).join('')
      : '';

const openaiDialect: FakeDialect = {
  basePath: '/v1',
  route(method, path, body) {
    return method === 'POST' && /^\/v1\/chat\/completions(\?.*)?$/.test(path) ? { model: typeof body?.model === 'string' ? body.model : undefined } : undefined;
  },
  normalise(body, headers) {
    const all: Message[] = Array.isArray(body?.messages) ? body.messages : [];
    const system = all.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => contentText(m.content));
    const auth = headers.authorization;
    const rf = body?.response_format;
    return {
      system: system.length > 0 ? system.join('\n') : undefined,
      messages: all
        .filter((m) => m.role === 'user' || m.role === 'assistant')
        .map((m) => ({ role: m.role as 'user' | 'assistant', content: contentText(m.content) })),
      temperature: body?.temperature,
      jsonSchema: rf?.type === 'json_schema' ? rf.json_schema?.schema : undefined,
      apiKey: typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice(7) : undefined,
    };
  },
  checkKey(apiKey, expected) {
    if (expected === undefined || apiKey === expected) return undefined;
    return {
      status: 401,
      body: { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } },
    };
  },
  successBody(text, usage, finishReason, request) {
    return {
      id: `chatcmpl-fake-${request.index}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: request.model ?? 'unknown',
      choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: finishReason ?? 'stop' }],
      usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
    };
  },
  errorBody(status, message) {
    return {
      error: { message, type: status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code: null },
    };
  },
};

/** Starts a fake OpenAI-compatible server on 127.0.0.1. With `apiKey`, other bearer keys get 401. */
export function startFakeOpenAI(options: { apiKey?: string; extraRoutes?: FakeExtraRoutes } = {}): Promise<FakeLlmServer> {
  return startFakeLlmServer(openaiDialect, options);
}
