/**
 * Builds a provider from settings or CLI flags plus an environment. Keys come from the caller
 * (SecretStorage in the editor) or the environment; they are never logged nor put in messages.
 */
import { LlmConfigError } from './errors';
import { urlWithoutCredentials } from '../spec/maskSecrets';
import { DEFAULT_GEMINI_MODEL, GeminiProvider, type GeminiProviderOptions } from './gemini';
import { DEFAULT_OPENAI_MODEL, OPENAI_DEFAULT_BASE_URL, OpenAICompatibleProvider, type OpenAIProviderOptions } from './openai';
import type { ChatProvider } from './types';

/** Environment variables read by {@link createProvider}. */
export type LlmEnv = Readonly<Record<string, string | undefined>>;

/** What {@link createProvider} needs. */
export interface ProviderConfig {
  provider: 'gemini' | 'openai';
  /** Model; defaults: Gemini `gemini-2.5-flash-lite`, OpenAI's endpoint `gpt-4o-mini`; other endpoints require one. */
  model?: string;
  /** Endpoint root; else `GEMINI_BASE_URL` / `OPENAI_BASE_URL`; else the vendor's. */
  baseUrl?: string;
  /** Key; else `GEMINI_API_KEY` / `GOOGLE_API_KEY` (Gemini) or `OPENAI_API_KEY`. */
  apiKey?: string;
  /** Where variables are read from. The CLI passes `process.env`; nothing is read when absent. */
  env?: LlmEnv;
  /** OpenAI-compatible only: see `OpenAIProviderOptions.strict`. */
  strict?: boolean | 'auto';
  /**
   * Extra generation settings sent with every call: Gemini `generationConfig` fields (e.g.
   * `{thinkingConfig: {thinkingBudget: 0}}`) or OpenAI-compatible body fields (e.g. `{max_tokens: 4096}`).
   */
  extra?: Record<string, unknown>;
}

const nonEmpty = (v: string | undefined): string | undefined => (v !== undefined && v.trim() !== '' ? v.trim() : undefined);

/** Creates a raw provider; throws `LlmConfigError` with a fix-it message when something is missing. */
export function createProvider(config: ProviderConfig): ChatProvider {
  if (config.provider === 'gemini') return new GeminiProvider(geminiProviderOptions(config));
  if (config.provider === 'openai') return new OpenAICompatibleProvider(openaiProviderOptions(config));
  throw new LlmConfigError(`Unknown provider: ${String((config as { provider: unknown }).provider)}`);
}

/**
 * The options of Gemini from a config and its environment (the synchronous provider's and the
 * batch backend's); throws `LlmConfigError` when there is no key.
 */
export function geminiProviderOptions(config: ProviderConfig): GeminiProviderOptions {
  const env = config.env ?? {};
  const apiKey = nonEmpty(config.apiKey) ?? nonEmpty(env.GEMINI_API_KEY) ?? nonEmpty(env.GOOGLE_API_KEY);
  if (!apiKey) {
    throw new LlmConfigError('No Gemini API key: set GEMINI_API_KEY (or GOOGLE_API_KEY), or store a key in the extension; or choose another provider.');
  }
  const baseUrl = nonEmpty(config.baseUrl) ?? nonEmpty(env.GEMINI_BASE_URL);
  return {
    apiKey,
    model: nonEmpty(config.model) ?? DEFAULT_GEMINI_MODEL,
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    ...(config.extra ? { extraConfig: config.extra } : {}),
  };
}

/**
 * The options of an OpenAI-compatible endpoint from a config and its environment (the synchronous
 * provider's and the batch backend's); throws `LlmConfigError` when a key or model is missing.
 */
export function openaiProviderOptions(config: ProviderConfig): OpenAIProviderOptions {
  const env = config.env ?? {};
  const baseUrl = nonEmpty(config.baseUrl) ?? nonEmpty(env.OPENAI_BASE_URL) ?? OPENAI_DEFAULT_BASE_URL;
  const isOpenAI = isOpenAIHost(baseUrl);
  const apiKey = nonEmpty(config.apiKey) ?? nonEmpty(env.OPENAI_API_KEY);
  if (!apiKey && isOpenAI) {
    throw new LlmConfigError(
      `No API key for ${urlWithoutCredentials(baseUrl)}: set OPENAI_API_KEY, or point the base URL at a local server (Ollama, vLLM, LM Studio).`,
    );
  }
  const model = nonEmpty(config.model) ?? (isOpenAI ? DEFAULT_OPENAI_MODEL : undefined);
  if (!model) throw new LlmConfigError(`No model given for the OpenAI-compatible endpoint ${urlWithoutCredentials(baseUrl)}: name one the server serves.`);
  return { model, baseUrl, apiKey, strict: config.strict, extraBody: config.extra };
}

function isOpenAIHost(baseUrl: string): boolean {
  try {
    return new URL(baseUrl).hostname === 'api.openai.com';
  } catch {
    throw new LlmConfigError(`Not a URL: ${urlWithoutCredentials(baseUrl)}`);
  }
}
