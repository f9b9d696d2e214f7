/**
 * "Generate Evals": pick a spec and a provider, run the pipeline in the extension host with
 * progress and cancellation. Records are written as they complete, so a cancelled run keeps
 * them and a re-run resumes from the cache.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PipelineProgress, PipelineResult } from '../core/pipeline/runner';
import {
  generate,
  generationEstimate,
  type GenerationModel,
  type GenerationOutcome,
  type GenerationRequest,
  type GenerationSettings,
} from '../core/app/generate';
import type { Spec } from '../core/spec/model';
import { resolveSpecPath } from '../core/app/resolveSpec';
import { throttleProgress } from '../core/app/throttle';
import { describePipelineProgress } from '../core/pipeline/progressWords';
import { EDITOR_PROGRESS_EVERY_MS } from '../core/workspace/defaults';
import { CACHE_DIR } from '../core/workspace/layout';
import { FolderLockedError } from '../core/harness/lock';
import { OutputFolderError } from '../core/harness/outputFolder';
import { resolveInside } from '../core/util/insideFolder';
import { readConfig, type Config } from './config';
import { errorMessage, showError, showWarning } from './log';
import { modelFor, pickProvider, runProviderFor, type ProviderChoice } from './providerChoice';
import { confirmCost, timedEstimate, workspacePrices, type CostAnswer } from './costEstimate';
import { formatUsd, repriceEstimate, type Prices } from '../core/llm/pricing';
import { PromptLibrary } from '../core/llm/prompts';
import type { ExtensionServices } from './services';
import type { SnapshotOutcome } from './snapshotCommand';
import type { SpecsNode } from './specsTree';
import { requireTrust } from './trust';

export interface GenerateArgs {
  provider?: ProviderChoice;
  /** Answers the cost question (above agentSeer.cost.confirmAbove) instead of the modal. */
  answerCost?: CostAnswer;
}

export type GenerateOutcome = { status: 'cancelled-before-start' | 'no-spec' | 'untrusted' } | { status: 'failed'; message: string } | PipelineResult;

/** A server without a snapshot: its tools are listed first (trust gate and confirmation included); the written snapshot, or undefined. */
async function snapshotFirst(
  server: string,
  snapshot: () => Thenable<SnapshotOutcome | undefined>,
): Promise<Extract<SnapshotOutcome, { status: 'written' }> | undefined> {
  const choice = await vscode.window.showWarningMessage(`"${server}" has no snapshot yet: its tools must be listed first.`, { modal: true }, 'Snapshot Tools');
  if (!choice) return undefined;
  const outcome = await snapshot();
  return outcome?.status === 'written' ? outcome : undefined;
}

/**
 * The spec behind whatever the command was invoked on, and its harness folder's name: named after
 * the server as the CLI names it (app/resolveSpec.ts), so a snapshot of server `filesystem` gets
 * `evals/filesystem` whatever name the server reports.
 */
async function specOf(target: unknown, services: ExtensionServices): Promise<{ spec: Spec; folder: vscode.WorkspaceFolder; harnessName: string } | undefined> {
  const node = target as SpecsNode | undefined;
  let file: string | undefined;
  if (target instanceof vscode.Uri) file = target.fsPath;
  else if (node?.kind === 'spec') file = node.entry.file;
  else if (node?.kind === 'server') {
    if (node.snapshot) file = node.snapshot.file;
    else {
      const outcome = await snapshotFirst(node.definition.name, () =>
        vscode.commands.executeCommand<SnapshotOutcome | undefined>('agentSeer.snapshotTools', node),
      );
      if (!outcome) return undefined;
      file = outcome.file;
    }
  } else {
    await services.model.ready;
    const specs = services.model.specs;
    if (!specs.length) {
      // Say what is missing and offer each way to get a spec (not awaited: the command ends now).
      const next = {
        'Add a Server': 'agentSeer.addServer',
        'Open a Snapshot': 'agentSeer.openSnapshot',
        'Try the Example': 'agentSeer.generateExample',
      } as const;
      void vscode.window
        .showInformationMessage(
          'Agent Seer: there is no tool spec in this workspace yet. Snapshot a server from .vscode/mcp.json, open a snapshot file, or try the example.',
          'Add a Server',
          'Open a Snapshot',
          'Try the Example',
        )
        .then((choice) => choice && vscode.commands.executeCommand(next[choice]));
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      specs.map((s) => ({ label: s.spec.name, description: `${s.spec.tools.length} tools · ${vscode.workspace.asRelativePath(s.file)}`, file: s.file })),
      { title: 'Generate evals for which spec?' },
    );
    file = pick?.file;
  }
  if (!file) return undefined;
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file));
  if (!folder) return undefined;
  const snapshots = await resolveInside(folder.uri.fsPath, readConfig(folder.uri).snapshotFolder, 'agentSeer.snapshotFolder');
  const context = { snapshotFolders: snapshots.ok ? [snapshots.path] : [], workspaceRoots: [folder.uri.fsPath] };
  let load = await resolveSpecPath(file, context);
  // An MCP config, as the CLI takes it: choose its server when it has several, and take the
  // server's snapshot first when there is none yet.
  if (!load.ok && load.chooseServer) {
    const server = await vscode.window.showQuickPick(load.chooseServer, {
      title: `Generate evals for which server of ${vscode.workspace.asRelativePath(file)}?`,
    });
    if (!server) return undefined;
    load = await resolveSpecPath(file, { ...context, server });
  }
  if (!load.ok && load.snapshotMissing) {
    const missing = load.snapshotMissing;
    const definition = services.model.definitions.find((d) => d.file === missing.configFile && d.name === missing.server);
    if (definition) {
      const outcome = await snapshotFirst(definition.name, () =>
        vscode.commands.executeCommand<SnapshotOutcome | undefined>('agentSeer.snapshotTools', { kind: 'server', definition }),
      );
      if (!outcome) return undefined;
      load = await resolveSpecPath(file, { ...context, server: missing.server });
    }
  }
  if (!load.ok) {
    const where = load.problem.line ? `:${load.problem.line}:${load.problem.column}` : '';
    void showError(services.log, `Agent Seer: ${vscode.workspace.asRelativePath(load.problem.file)}${where}: ${load.problem.message}`);
    return undefined;
  }
  for (const w of load.warnings) services.log.warn(w);
  return { spec: load.spec, folder, harnessName: load.harnessName };
}

export async function generateEvals(services: ExtensionServices, target: unknown, args: GenerateArgs = {}): Promise<GenerateOutcome> {
  const found = await specOf(target, services);
  if (!found) return { status: 'no-spec' };
  const { spec, folder, harnessName } = found;
  const config = readConfig(folder.uri);
  const promptsDir = vscode.Uri.joinPath(services.extensionUri, 'prompts').fsPath;
  // The estimate is priced per model; its calls and tokens are the run's, made once.
  const prices = await workspacePrices(folder.uri, services.log);
  const settings = generationSettings(config);
  // Not made for a run that was told to go offline (it calls no model).
  const base =
    args.provider?.kind === 'offline'
      ? undefined
      : timedEstimate(services.log, `the generation of "${spec.name}" (${spec.tools.length} tools)`, () =>
          generationEstimate(spec, { id: 'gemini', model: modelFor('gemini', 'generate', config) }, settings, prices, PromptLibrary.load(promptsDir)),
        );
  const choice =
    args.provider ??
    (await pickProvider('generate', base ? { gemini: base, openai: repriceEstimate(base, 'openai', modelFor('openai', 'generate', config), prices) } : {}));
  if (!choice) return { status: 'cancelled-before-start' };
  // The setting as the user wrote it is checked first (the message names it); then the harness's
  // own folder, which a symlink inside the harness folder could still lead elsewhere.
  const harnessBase = await resolveInside(folder.uri.fsPath, config.harnessFolder, 'agentSeer.harnessFolder');
  const out = harnessBase.ok ? await resolveInside(folder.uri.fsPath, path.join(config.harnessFolder, harnessName), 'the harness folder') : harnessBase;
  if (!out.ok) {
    void showError(services.log, `Agent Seer: ${out.message}`);
    return { status: 'failed', message: out.message };
  }
  const outDir = out.path;

  const made = await generationModel(services, choice, folder.uri, outDir, prices);
  if ('status' in made) return made;
  // Priced for the model the provider really uses; asked about before any call is made.
  const estimate = made.model && base ? repriceEstimate(base, made.model.chat.id, made.model.chat.model, prices) : undefined;
  if (!(await confirmCost(estimate, folder.uri, services.log, args.answerCost, made.model?.batch ? 'batch' : 'sync'))) {
    await made.model?.batch?.chat.close();
    return { status: 'cancelled-before-start' };
  }

  services.log.info(`Generating evals for "${spec.name}" with ${choice.kind}${made.model?.batch ? ' in batch mode' : ''} into ${outDir}`);
  const model = made.model && { ...made.model, ...(estimate ? { estimate } : {}) };
  const outcome = await runWithProgress(services, `Generating evals for "${spec.name}"`, { spec, outDir, ...(model ? { model } : {}), settings, promptsDir });
  if ('status' in outcome) return outcome;
  await services.harnesses.reload(outDir);
  return reportOutcome(services, outcome.result);
}

/** What the workspace's settings ask of a run. */
export function generationSettings(config: Config): GenerationSettings {
  const g = config.generation;
  return { simple: g.simple, complex: g.complex, concurrency: g.concurrency, ...(g.rpm ? { rpm: g.rpm } : {}), fallback: g.fallback };
}

/**
 * The model a run calls (trust asked, key prompted; in batch mode wrapped in the engine), none for
 * the offline generator, or why there is none.
 */
export async function generationModel(
  services: ExtensionServices,
  choice: ProviderChoice,
  scope: vscode.Uri,
  outDir: string,
  prices: Prices,
): Promise<{ model?: GenerationModel } | Exclude<GenerateOutcome, PipelineResult>> {
  if (choice.kind === 'offline') return {};
  if (!requireTrust('call a language model', services.log)) return { status: 'untrusted' };
  try {
    const made = await runProviderFor(choice, services, scope, 'generate', path.join(outDir, CACHE_DIR));
    if (!made) return { status: 'cancelled-before-start' };
    return { model: { chat: made.chat, ...(made.batch ? { batch: made.batch } : {}), timeoutMs: readConfig(scope).llm.timeoutMs, prices } };
  } catch (err) {
    const message = errorMessage(err);
    void showError(services.log, `Agent Seer: ${message}`);
    return { status: 'failed', message };
  }
}

/**
 * Runs `generate` (a full run or a stale-only one) under a cancellable progress notification.
 * A folder that must not be used, or one another run holds, is said and nothing runs.
 */
export async function runWithProgress(
  services: ExtensionServices,
  title: string,
  request: Omit<GenerationRequest, 'signal' | 'onProgress'>,
): Promise<GenerationOutcome | { status: 'failed'; message: string }> {
  try {
    return await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
      const abort = new AbortController();
      const sub = token.onCancellationRequested(() => abort.abort());
      try {
        return await generate({
          ...request,
          signal: abort.signal,
          // Progress arrives on every counter change: show at most a few updates a second.
          onProgress: throttleProgress(EDITOR_PROGRESS_EVERY_MS, (p: PipelineProgress) => progress.report({ message: describePipelineProgress(p) })),
        });
      } finally {
        sub.dispose();
      }
    });
  } catch (err) {
    // The folder was refused (not a harness of this spec) or another run holds it: nothing ran.
    if (!(err instanceof OutputFolderError || err instanceof FolderLockedError)) throw err;
    void showError(services.log, `Agent Seer: ${err.message}`);
    return { status: 'failed', message: err.message };
  }
}

/** Logs a finished run and tells the user how it ended. */
export function reportOutcome<R extends PipelineResult>(services: ExtensionServices, result: R): R {
  const c = result.counts;
  const summary = `${c.records} records (${c.byTier.simple} simple, ${c.byTier.complex} complex, ${c.multiTurn} multi-turn), coverage ${(c.coverage.ratio * 100).toFixed(0)}%`;
  const cost = result.manifest.cost ? `, ${formatUsd(result.manifest.cost.actual.usd)}` : '';
  services.log.info(
    `Run ${result.status}: ${summary}; ${result.llm.calls} LLM calls, ${result.llm.inputTokens + result.llm.outputTokens} tokens${cost}, ${(result.wallTimeMs / 1000).toFixed(1)} s`,
  );
  if (result.status === 'complete') void vscode.window.showInformationMessage(`Agent Seer: ${summary}.`);
  // 0 records is never a success: a warning with the reason (every tool skipped, …), not a toast of "0 records".
  else if (result.status === 'empty') void showWarning(services.log, `Agent Seer: generation wrote no records: ${result.error ?? '0 records'}.`);
  else if (result.status === 'cancelled')
    void showWarning(
      services.log,
      result.manifest.provider === 'offline'
        ? `Agent Seer: cancelled; ${c.records} finished records are kept. Offline generation is deterministic: running it again makes the same harness from the start.`
        : `Agent Seer: cancelled; ${c.records} finished records are kept. Run again to resume.`,
    );
  else if (result.status === 'partial') {
    void showWarning(
      services.log,
      `Agent Seer: generation partial (${summary}): ${result.error ?? 'some LLM items failed'}. Run again to retry them; finished replies are cached.`,
    );
  } else void showError(services.log, `Agent Seer: generation failed: ${result.error ?? 'unknown error'}`);
  return result;
}
