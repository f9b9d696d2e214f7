// Test-only helper extension (loaded by scripts/test-integration.mjs as a second
// extensionDevelopmentPath for the main suite). It registers a fake chat model under the vendor
// "agent-seer-fake" through the finalized LanguageModelChatProvider API (VS Code 1.104) and
// answers each request with whatever the test's responder returns. Plain JS: no build step.
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
  capabilities: {},
};

/** Text of a request message (its text parts, concatenated). */
function textOf(message) {
  if (typeof message === 'string') return message;
  const parts = Array.isArray(message.content) ? message.content : [message.content];
  return parts.map((p) => (typeof p === 'string' ? p : p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

function activate() {
  /** @type {undefined | ((req: {model: string, messages: {role: 'user'|'assistant', content: string}[]}) => string | Promise<string>)} */
  let responder;
  /** Every request received, in order, as plain data. */
  const requests = [];

  const provider = {
    provideLanguageModelChatInformation() {
      return [MODEL];
    },
    async provideLanguageModelChatResponse(model, messages, _options, progress, token) {
      const req = {
        model: model.id,
        messages: messages.map((m) => ({ role: m.role === vscode.LanguageModelChatMessageRole.Assistant ? 'assistant' : 'user', content: textOf(m) })),
      };
      requests.push(req);
      if (!responder) throw new Error('fake-lm: no responder set (call setResponder first)');
      const text = await responder(req);
      if (token.isCancellationRequested) return;
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
