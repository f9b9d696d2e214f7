/**
 * Choosing a model, shared by Generate Evals and Judge: the picker (offline, Gemini,
 * OpenAI-compatible, the user's VS Code chat models) and turning a choice into a ChatProvider
 * with the key from SecretStorage or the environment.
 */
import * as vscode from 'vscode';
import { batchMode, describeBatchEvent, type BatchMode } from '../core/app/batchMode';
import { createProvider, DEFAULT_GEMINI_JUDGE_MODEL, DEFAULT_GEMINI_MODEL, DEFAULT_OPENAI_MODEL, type ChatProvider, type ProviderConfig } from '../core/llm';
import { estimateCalls, pickerCostText, type CostEstimate } from '../core/llm/pricing';
import { DEFAULT_BATCH_RETRY } from '../core/workspace/defaults';
import { readConfig, type Config } from './config';
import { SECRET_FOR_PROVIDER } from './secrets';
import type { ExtensionServices } from './services';
import { listChatModels, VsCodeLmProvider } from './vscodeLm';

/** Which provider to use; callers (and tests) may pass it to skip the picker. */
export type ProviderChoice = { kind: 'offline' } | { kind: 'gemini' } | { kind: 'openai' } | { kind: 'vscode'; modelId: string };

/** What the model is for: the judge defaults to Gemini Flash, generation to Flash Lite. */
export type ModelPurpose = 'generate' | 'judge';

/** The model a Gemini or OpenAI-compatible choice will use for `purpose`, from the settings (as `chatProviderFor` builds it). */
export function modelFor(kind: 'gemini' | 'openai', purpose: ModelPurpose, config: Config): string {
  if (kind === 'openai') return config.openai.model ?? DEFAULT_OPENAI_MODEL;
  return purpose === 'judge' ? (config.gemini.judgeModel ?? DEFAULT_GEMINI_JUDGE_MODEL) : (config.gemini.model ?? DEFAULT_GEMINI_MODEL);
}

/** The estimate's line under a model in the picker: `≈$0.47–$1.40 · batch ≈$0.24–$0.70 — 46–138 calls, gemini-2.5-flash-lite`. */
function costDetail(e: CostEstimate | undefined): { detail?: string } {
  return e ? { detail: `${pickerCostText(e)} — ${estimateCalls(e)}, ${e.model}` } : {};
}

/**
 * Asks which model to use. `estimates`: the run's estimate for Gemini and the OpenAI-compatible
 * model (core's estimator), shown under each.
 */
export async function pickProvider(
  purpose: ModelPurpose,
  estimates: { gemini?: CostEstimate; openai?: CostEstimate } = {},
): Promise<ProviderChoice | undefined> {
  const models = await listChatModels();
  type Item = vscode.QuickPickItem & { choice?: ProviderChoice };
  const offline =
    purpose === 'judge'
      ? 'exact schema checks only; no key, no network (LLM-only aspects are not scored)'
      : 'deterministic, from the spec alone; no key, no network';
  // In Restricted Mode the models are listed but say why choosing them will be refused.
  const untrusted = vscode.workspace.isTrusted ? '' : ' — needs a trusted workspace';
  const items: Item[] = [
    { label: '$(beaker) Offline', description: offline, choice: { kind: 'offline' } },
    {
      label: '$(sparkle) Gemini',
      description: `Google AI Studio key (stored in SecretStorage)${untrusted}`,
      choice: { kind: 'gemini' },
      ...costDetail(estimates.gemini),
    },
    {
      label: '$(server) OpenAI-compatible',
      description: `OpenAI, Ollama, vLLM, LM Studio, llama.cpp (settings: agentSeer.openai.*)${untrusted}`,
      choice: { kind: 'openai' },
      ...costDetail(estimates.openai),
    },
  ];
  if (models.length) {
    items.push({ label: 'VS Code language models', kind: vscode.QuickPickItemKind.Separator });
    for (const m of models) items.push({ label: `$(copilot) ${m.name}`, description: `${m.vendor} · ${m.family}`, choice: { kind: 'vscode', modelId: m.id } });
  }
  const title = purpose === 'judge' ? 'Judge with which model?' : 'Generate evals with which model?';
  return (await vscode.window.showQuickPick(items, { title }))?.choice;
}

/** A ChatProvider for a non-offline choice; undefined when the user declined to give a key. */
export async function chatProviderFor(
  choice: Exclude<ProviderChoice, { kind: 'offline' }>,
  services: ExtensionServices,
  scope: vscode.Uri,
  purpose: ModelPurpose,
): Promise<ChatProvider | undefined> {
  return (await providerFor(choice, services, scope, purpose))?.chat;
}

/** What a run calls the model through: the provider, and in batch mode the engine around it with its limits. */
export interface RunProvider {
  chat: ChatProvider;
  /** Set in batch mode: the engine (`chat` is it), its call limits and worker count. */
  batch?: BatchMode;
}

/**
 * The provider for a run whose cache is `cacheDir`: in batch mode (`agentSeer.llm.batch`) Gemini
 * and OpenAI calls go through the batch engine, its jobs journaled in the cache so a closed editor
 * loses nothing; VS Code's models have no batch API and are called directly (said in the log).
 */
export async function runProviderFor(
  choice: Exclude<ProviderChoice, { kind: 'offline' }>,
  services: ExtensionServices,
  scope: vscode.Uri,
  purpose: ModelPurpose,
  cacheDir: string,
): Promise<RunProvider | undefined> {
  const made = await providerFor(choice, services, scope, purpose);
  if (!made) return undefined;
  if (!readConfig(scope).llm.batch) return { chat: made.chat };
  if (!made.config) {
    services.log.warn('agentSeer.llm.batch is on, but VS Code language models have no batch API: calling the model directly.');
    return { chat: made.chat };
  }
  const batch = batchMode({
    config: made.config,
    sync: made.chat,
    cacheDir,
    wait: true,
    retry: DEFAULT_BATCH_RETRY,
    onEvent: (e) => services.log.info(`batch: ${describeBatchEvent(e)}`),
    env: process.env,
  });
  return { chat: batch.chat, batch };
}

async function providerFor(
  choice: Exclude<ProviderChoice, { kind: 'offline' }>,
  services: ExtensionServices,
  scope: vscode.Uri,
  purpose: ModelPurpose,
): Promise<{ chat: ChatProvider; config?: ProviderConfig } | undefined> {
  // Callers ask first (with a message); this is the backstop: no model call, no key sent, from
  // an untrusted workspace.
  if (!vscode.workspace.isTrusted) throw new Error('language models are not used in an untrusted workspace');
  const config = readConfig(scope);
  if (choice.kind === 'vscode') {
    const [chat] = await vscode.lm.selectChatModels({ id: choice.modelId });
    if (!chat) throw new Error(`the VS Code language model "${choice.modelId}" is no longer available`);
    return { chat: new VsCodeLmProvider(chat) };
  }
  const secretKey = SECRET_FOR_PROVIDER[choice.kind];
  let apiKey = await services.secrets.get(secretKey);
  const envKey = choice.kind === 'gemini' ? (process.env.GEMINI_API_KEY ?? process.env.GOOGLE_API_KEY) : process.env.OPENAI_API_KEY;
  const needsKey = choice.kind === 'gemini' || !config.openai.baseUrl;
  if (!apiKey && !envKey && needsKey) {
    if (!(await services.secrets.prompt(choice.kind))) return undefined;
    apiKey = await services.secrets.get(secretKey);
  }
  const settings = choice.kind === 'gemini' ? config.gemini : config.openai;
  // Unset, the factory picks the default (and an OpenAI-compatible local server needs a model named).
  const model = choice.kind === 'gemini' || settings.model ? modelFor(choice.kind, purpose, config) : undefined;
  const providerConfig: ProviderConfig = {
    provider: choice.kind,
    ...(apiKey ? { apiKey } : {}),
    ...(model ? { model } : {}),
    ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
    env: process.env,
  };
  return { chat: createProvider(providerConfig), config: providerConfig };
}
