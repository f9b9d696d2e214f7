/**
 * The test-only fake `vscode.lm` chat model (test/integration/extensions/fake-lm): its API, and
 * its requests in the fake LLM server's shape so the unit tests' pipeline responder can answer them.
 */
import type { FakeRequest } from '../fakes/fakeLlmServer';

/** A request as the fake model saw it: its messages' text, roles mapped. */
export interface FakeLmRequest {
  model: string;
  messages: { role: 'user' | 'assistant'; content: string }[];
}

/** What test/integration/extensions/fake-lm/extension.js exports. */
export interface FakeLmApi {
  vendor: string;
  modelId: string;
  requests: FakeLmRequest[];
  setResponder(fn: (req: FakeLmRequest) => string | Promise<string>): void;
  reset(): void;
}

export const FAKE_LM_ID = 'agent-seer-test.fake-lm';
/** What the structured layer appends to the instructions when the provider has no JSON Schema mode. */
export const SCHEMA_MARKER = 'Reply with a single JSON value, and nothing else, that conforms to this JSON Schema:\n';

/**
 * The fake model's request in the fake LLM server's shape, so the pipeline responder can answer
 * it: the adapter sends the instructions (with the JSON Schema appended) as the first user
 * message, then the conversation.
 */
export function toFakeRequest(req: FakeLmRequest, index: number): FakeRequest {
  const [first, ...rest] = req.messages;
  const system = first?.content ?? '';
  const at = system.lastIndexOf(SCHEMA_MARKER);
  const jsonSchema: unknown = at >= 0 ? JSON.parse(system.slice(at + SCHEMA_MARKER.length)) : undefined;
  const lastUser = [...rest].reverse().find((m) => m.role === 'user');
  return {
    index,
    method: 'POST',
    path: `/vscode-lm/${req.model}`,
    headers: {},
    rawBody: '',
    body: undefined,
    receivedAt: Date.now(),
    model: req.model,
    system,
    messages: rest,
    lastUserText: lastUser?.content ?? '',
    temperature: undefined,
    jsonSchema,
    apiKey: undefined,
  };
}
