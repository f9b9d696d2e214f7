/**
 * API keys live only in SecretStorage (or the environment): never in settings, logs or files.
 * Keys are a typed union so a typo cannot create a stray secret.
 */
import * as vscode from 'vscode';

export type SecretKey = 'agentSeer.geminiApiKey' | 'agentSeer.openaiApiKey';

export const SECRET_FOR_PROVIDER: Record<'gemini' | 'openai', SecretKey> = {
  gemini: 'agentSeer.geminiApiKey',
  openai: 'agentSeer.openaiApiKey',
};

export class Secrets {
  constructor(private readonly storage: vscode.SecretStorage) {}

  get(key: SecretKey): Thenable<string | undefined> {
    return this.storage.get(key);
  }

  store(key: SecretKey, value: string): Thenable<void> {
    return this.storage.store(key, value);
  }

  delete(key: SecretKey): Thenable<void> {
    return this.storage.delete(key);
  }

  /** Asks for a key (masked) and stores it; returns whether one was stored. */
  async prompt(provider: 'gemini' | 'openai'): Promise<boolean> {
    const value = await vscode.window.showInputBox({
      title: provider === 'gemini' ? 'Gemini API key' : 'OpenAI-compatible API key',
      prompt: 'Stored in VS Code SecretStorage; never written to settings or logs.',
      password: true,
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() ? undefined : 'Enter a key, or press Escape to cancel'),
    });
    if (!value?.trim()) return false;
    await this.store(SECRET_FOR_PROVIDER[provider], value.trim());
    return true;
  }
}
