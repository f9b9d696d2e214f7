/**
 * VS Code's language models (`vscode.lm`) as a ChatProvider: no key needed where the user has
 * a chat model. For structured output these models return text only, so the structured layer
 * puts the JSON Schema in the instructions and validates the reply as it does for any provider.
 * As an agent they call tools natively: the harness's tools are offered as
 * `LanguageModelChatTool`s, calls come back as `LanguageModelToolCallPart`s in the response
 * stream, and their results go back as `LanguageModelToolResultPart`s in the next request.
 */
import * as vscode from 'vscode';
import type { ChatProvider, ChatReply, ChatRequest, ToolCall, ToolCallingProvider, ToolMessage, ToolTurnReply, ToolTurnRequest } from '../core/llm';
import { LlmHttpError } from '../core/llm';
import { isRecord } from '../core/util/isRecord';

/** Lists the chat models the user has, for the provider picker. */
export async function listChatModels(): Promise<vscode.LanguageModelChat[]> {
  try {
    return await vscode.lm.selectChatModels();
  } catch {
    return [];
  }
}

/** A VS Code chat model: structured output through text, and native tool calling for agents. */
/**
 * Asks which chat model to use (the only one without asking); its id, or undefined when there is
 * no model or the user cancelled.
 */
export async function pickChatModelId(title: string): Promise<string | undefined> {
  const models = await listChatModels();
  if (models.length <= 1) return models[0]?.id;
  const picked = await vscode.window.showQuickPick(
    models.map((m) => ({ label: m.name, description: `${m.vendor} · ${m.family}`, id: m.id })),
    { title },
  );
  return picked?.id;
}

/** A VS Code chat model: structured output through text, and native tool calling for agents. */
export class VsCodeLmProvider implements ChatProvider, ToolCallingProvider {
  readonly id = 'vscode';
  readonly supportsJsonSchema = false;
  readonly model: string;

  constructor(private readonly chat: vscode.LanguageModelChat) {
    this.model = `${chat.vendor}/${chat.id}`;
  }

  async complete(req: ChatRequest): Promise<ChatReply> {
    return this.send(req.signal, async (token) => {
      // No system role in this API: the instructions go first, as a user message.
      const messages = [
        ...(req.system ? [vscode.LanguageModelChatMessage.User(req.system)] : []),
        ...req.messages.map((m) =>
          m.role === 'user' ? vscode.LanguageModelChatMessage.User(m.content) : vscode.LanguageModelChatMessage.Assistant(m.content),
        ),
      ];
      const response = await this.chat.sendRequest(messages, { justification: 'Agent Seer generates and judges evaluation scenarios.' }, token);
      let text = '';
      for await (const chunk of response.text) text += chunk;
      const prompt = [req.system ?? '', ...req.messages.map((m) => m.content)].join('\n');
      const input = await countTokens(this.chat, prompt, token);
      const output = await countTokens(this.chat, text, token);
      return { text, usage: { inputTokens: input, outputTokens: output } };
    });
  }

  async completeWithTools(req: ToolTurnRequest): Promise<ToolTurnReply> {
    return this.send(req.signal, async (token) => {
      const messages = [...(req.system ? [vscode.LanguageModelChatMessage.User(req.system)] : []), ...req.messages.map(toChatMessage)];
      const tools: vscode.LanguageModelChatTool[] = req.tools.map((t) => ({ name: t.name, description: t.description ?? '', inputSchema: t.parameters }));
      const response = await this.chat.sendRequest(
        messages,
        { justification: 'Agent Seer runs this model as an agent against an evaluation harness.', tools, toolMode: vscode.LanguageModelChatToolMode.Auto },
        token,
      );
      let text = '';
      const calls: ToolCall[] = [];
      for await (const part of response.stream) {
        if (part instanceof vscode.LanguageModelTextPart) text += part.value;
        else if (part instanceof vscode.LanguageModelToolCallPart) calls.push({ id: part.callId, name: part.name, arguments: part.input });
      }
      const prompt = messages.map(messageText).join('\n');
      const input = await countTokens(this.chat, prompt, token);
      const output = await countTokens(this.chat, text + calls.map((c) => JSON.stringify(c)).join(''), token);
      return { text, calls, usage: { inputTokens: input, outputTokens: output }, finishReason: calls.length ? 'tool_calls' : 'stop' };
    });
  }

  /** One request: cancelled with `signal`; a VS Code model error as an HTTP-like error the retry layer understands. */
  private async send<T>(signal: AbortSignal, request: (token: vscode.CancellationToken) => Promise<T>): Promise<T> {
    const cts = new vscode.CancellationTokenSource();
    const onAbort = () => cts.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await request(cts.token);
    } catch (err) {
      if (signal.aborted) throw err;
      if (err instanceof vscode.LanguageModelError) {
        // No consent or no such model is final; anything else may pass.
        const fatal = err.code === vscode.LanguageModelError.NoPermissions.name || err.code === vscode.LanguageModelError.NotFound.name;
        throw new LlmHttpError({ status: fatal ? 403 : 503, message: `VS Code language model: ${err.message}` });
      }
      throw err;
    } finally {
      signal.removeEventListener('abort', onAbort);
      cts.dispose();
    }
  }
}

/** A tool-calling message in `vscode.lm`'s terms: calls as tool-call parts, results as tool-result parts of a user message. */
function toChatMessage(m: ToolMessage): vscode.LanguageModelChatMessage {
  if (m.role === 'user') return vscode.LanguageModelChatMessage.User(m.content);
  if (m.role === 'assistant') {
    const parts: (vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart)[] = [];
    if (m.content) parts.push(new vscode.LanguageModelTextPart(m.content));
    for (const c of m.calls) parts.push(new vscode.LanguageModelToolCallPart(c.id, c.name, isRecord(c.arguments) ? c.arguments : {}));
    return vscode.LanguageModelChatMessage.Assistant(parts);
  }
  return vscode.LanguageModelChatMessage.User(
    m.results.map(
      (r) =>
        new vscode.LanguageModelToolResultPart(r.callId, [new vscode.LanguageModelTextPart(r.isError ? `Error: ${stringify(r.output)}` : stringify(r.output))]),
    ),
  );
}

function stringify(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** A message's text for token counting (calls and results as JSON). */
function messageText(m: vscode.LanguageModelChatMessage): string {
  return m.content
    .map((p) =>
      p instanceof vscode.LanguageModelTextPart
        ? p.value
        : p instanceof vscode.LanguageModelToolCallPart
          ? JSON.stringify(p.input)
          : p instanceof vscode.LanguageModelToolResultPart
            ? p.content.map((c) => (c instanceof vscode.LanguageModelTextPart ? c.value : '')).join('')
            : '',
    )
    .join('');
}

/** Token count, or 0 when the model cannot tell (accounting must not fail a call). */
async function countTokens(chat: vscode.LanguageModelChat, text: string, token: vscode.CancellationToken): Promise<number> {
  try {
    return await chat.countTokens(text, token);
  } catch {
    return 0;
  }
}
