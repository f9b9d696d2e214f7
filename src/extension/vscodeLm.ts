/**
 * VS Code's language models (`vscode.lm`) as a ChatProvider: no key needed where the user has
 * a chat model. These models return text only, so the structured layer puts the JSON Schema in
 * the instructions and validates the reply as it does for any provider.
 */
import * as vscode from 'vscode';
import type { ChatProvider, ChatReply, ChatRequest } from '../core/llm';
import { LlmHttpError } from '../core/llm';

/** Lists the chat models the user has, for the provider picker. */
export async function listChatModels(): Promise<vscode.LanguageModelChat[]> {
  try {
    return await vscode.lm.selectChatModels();
  } catch {
    return [];
  }
}

export class VsCodeLmProvider implements ChatProvider {
  readonly id = 'vscode';
  readonly supportsJsonSchema = false;
  readonly model: string;

  constructor(private readonly chat: vscode.LanguageModelChat) {
    this.model = `${chat.vendor}/${chat.id}`;
  }

  async complete(req: ChatRequest): Promise<ChatReply> {
    const cts = new vscode.CancellationTokenSource();
    const onAbort = () => cts.cancel();
    req.signal.addEventListener('abort', onAbort, { once: true });
    try {
      // No system role in this API: the instructions go first, as a user message.
      const messages = [
        ...(req.system ? [vscode.LanguageModelChatMessage.User(req.system)] : []),
        ...req.messages.map((m) =>
          m.role === 'user' ? vscode.LanguageModelChatMessage.User(m.content) : vscode.LanguageModelChatMessage.Assistant(m.content),
        ),
      ];
      const response = await this.chat.sendRequest(messages, { justification: 'Agent Seer generates and judges evaluation scenarios.' }, cts.token);
      let text = '';
      for await (const chunk of response.text) text += chunk;
      const prompt = [req.system ?? '', ...req.messages.map((m) => m.content)].join('\n');
      const input = await countTokens(this.chat, prompt, cts.token);
      const output = await countTokens(this.chat, text, cts.token);
      return { text, usage: { inputTokens: input, outputTokens: output } };
    } catch (err) {
      if (req.signal.aborted) throw err;
      if (err instanceof vscode.LanguageModelError) {
        // No consent or no such model is final; anything else may pass.
        const fatal = err.code === vscode.LanguageModelError.NoPermissions.name || err.code === vscode.LanguageModelError.NotFound.name;
        throw new LlmHttpError({ status: fatal ? 403 : 503, message: `VS Code language model: ${err.message}` });
      }
      throw err;
    } finally {
      req.signal.removeEventListener('abort', onAbort);
      cts.dispose();
    }
  }
}

/** Token count, or 0 when the model cannot tell (accounting must not fail a call). */
async function countTokens(chat: vscode.LanguageModelChat, text: string, token: vscode.CancellationToken): Promise<number> {
  try {
    return await chat.countTokens(text, token);
  } catch {
    return 0;
  }
}
