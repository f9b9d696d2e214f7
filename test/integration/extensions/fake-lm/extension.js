// Test-only helper extension (loaded by scripts/test-integration.mjs as a second
// extensionDevelopmentPath for the main suite). It registers a fake chat model under the vendor
// "agent-seer-fake" through the finalized LanguageModelChatProvider API (VS Code 1.104) and
// answers each request with whatever the test's responder returns: text, or tool calls (the model
// declares tool calling, so an agent can be scripted through it). Plain JS: no build step.
'use strict';
const vscode = require('vscode');

const VENDOR = 'agent-seer-fake';
const MODEL = {
  id: 'agent-seer-fake-model',
  name: 'Fake LM',
  family: 'fake',
  version: '1.0.0',
  maxInputTokens: 1_000_000,
  maxOutputTokens: 100_000,
  capabilities: { toolCalling: true },
};

/** Text of a request message (its text parts, concatenated). */
function textOf(message) {
  if (typeof message === 'string') return message;
  const parts = Array.isArray(message.content) ? message.content : [message.content];
  return parts.map((p) => (typeof p === 'string' ? p : p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

/** Parts of a message of one class, as plain data. */
function partsOf(message) {
  return Array.isArray(message.content) ? message.content : [];
}

function activate() {
  /** @type {undefined | ((req: FakeLmRequest) => string | {text?: string, calls: {name: string, input: object}[]} | Promise<string | {text?: string, calls: {name: string, input: object}[]}>)} */
  let responder;
  /** Every request received, in order, as plain data. */
  const requests = [];

  const provider = {
    provideLanguageModelChatInformation() {
      return [MODEL];
    },
    async provideLanguageModelChatResponse(model, messages, options, progress, token) {
      /** @typedef {{model: string, tools: {name: string, description: string, inputSchema: unknown}[], messages: {role: 'user'|'assistant', content: string, toolCalls: {callId: string, name: string, input: unknown}[], toolResults: {callId: string, content: string}[]}[]}} FakeLmRequest */
      const req = {
        model: model.id,
        tools: (options.tools ?? []).map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
        messages: messages.map((m) => ({
          role: m.role === vscode.LanguageModelChatMessageRole.Assistant ? 'assistant' : 'user',
          content: textOf(m),
          toolCalls: partsOf(m)
            .filter((p) => p && typeof p.callId === 'string' && typeof p.name === 'string')
            .map((p) => ({ callId: p.callId, name: p.name, input: p.input })),
          toolResults: partsOf(m)
            .filter((p) => p && typeof p.callId === 'string' && Array.isArray(p.content))
            .map((p) => ({ callId: p.callId, content: p.content.map((c) => (typeof c?.value === 'string' ? c.value : '')).join('') })),
        })),
      };
      requests.push(req);
      if (!responder) throw new Error('fake-lm: no responder set (call setResponder first)');
      const reply = await responder(req);
      if (token.isCancellationRequested) return;
      if (typeof reply !== 'string') {
        if (reply.text) progress.report(new vscode.LanguageModelTextPart(reply.text));
        for (const [i, call] of reply.calls.entries())
          progress.report(new vscode.LanguageModelToolCallPart(`call-${requests.length}-${i}`, call.name, call.input));
        return;
      }
      const text = reply;
      // Two chunks, so the consumer really streams.
      const half = Math.floor(text.length / 2);
      progress.report(new vscode.LanguageModelTextPart(text.slice(0, half)));
      progress.report(new vscode.LanguageModelTextPart(text.slice(half)));
    },
    provideTokenCount(_model, text) {
      return Math.ceil(textOf(text).length / 4);
    },
  };
  const registration = vscode.lm.registerLanguageModelChatProvider(VENDOR, provider);

  return {
    vendor: VENDOR,
    modelId: MODEL.id,
    requests,
    setResponder(fn) {
      responder = fn;
    },
    reset() {
      responder = undefined;
      requests.length = 0;
    },
    dispose() {
      registration.dispose();
    },
  };
}

function deactivate() {}

module.exports = { activate, deactivate };
