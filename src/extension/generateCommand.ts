/**
 * "Generate Evals": pick a spec and a provider, run the pipeline in the extension host with
 * progress and cancellation. Records are written as they complete, so a cancelled run keeps
 * them and a re-run resumes from the cache.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { runPipeline, type PipelineProgress, type PipelineResult } from '../core/pipeline/runner';
import type { Spec } from '../core/spec/model';
import { resolveSpecPath } from '../core/app/resolveSpec';
import { throttleProgress } from '../core/app/throttle';
import { EDITOR_PROGRESS_EVERY_MS } from '../core/workspace/defaults';
import { FolderLockedError } from '../core/harness/lock';
import { OutputFolderError } from '../core/harness/outputFolder';
import { resolveInside } from '../core/util/insideFolder';
import { readConfig, type Config } from './config';
import { errorMessage } from './log';
import { chatProviderFor, pickProvider, type ProviderChoice } from './providerChoice';
import type { ExtensionServices } from './services';
import type { SnapshotOutcome } from './snapshotCommand';
import type { SpecsNode } from './specsTree';
import { requireTrust } from './trust';

export interface GenerateArgs {
  provider?: ProviderChoice;
}

export type GenerateOutcome = { status: 'cancelled-before-start' | 'no-spec' | 'untrusted' } | { status: 'failed'; message: string } | PipelineResult;

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
      // No snapshot yet: take one (trust gate and confirmation included), then generate from it.
      const choice = await vscode.window.showWarningMessage(
        `"${node.definition.name}" has no snapshot yet: its tools must be listed first.`,
        { modal: true },
        'Snapshot Tools',
      );
      if (!choice) return undefined;
      const outcome = await vscode.commands.executeCommand<SnapshotOutcome | undefined>('agentSeer.snapshotTools', node);
      if (outcome?.status !== 'written') return undefined;
      file = outcome.file;
    }
  } else {
    await services.model.ready;
    const specs = services.model.specs;
    if (!specs.length) {
      void vscode.window.showInformationMessage('No tool specs in this workspace. Take a snapshot of a server first.');
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
  const load = await resolveSpecPath(file, { snapshotFolders: snapshots.ok ? [snapshots.path] : [], workspaceRoots: [folder.uri.fsPath] });
  if (!load.ok) {
    const where = load.problem.line ? `:${load.problem.line}:${load.problem.column}` : '';
    void vscode.window.showErrorMessage(`${vscode.workspace.asRelativePath(load.problem.file)}${where}: ${load.problem.message}`);
    return undefined;
  }
  for (const w of load.warnings) services.log.warn(w);
  return { spec: load.spec, folder, harnessName: load.harnessName };
}

function describe(p: PipelineProgress): string {
  const order = ['interpret', 'scenarios', 'mock', 'turns'] as const;
  const active = order.find((s) => p.stages[s].done < p.stages[s].total) ?? p.stage;
  const s = p.stages[active];
  const llm = p.llm.calls || p.llm.cacheHits ? ` · ${p.llm.calls} LLM calls, ${p.llm.cacheHits} cached` : '';
  return `${active} ${s.done}/${s.total} · ${p.records} records${llm}`;
}

export async function generateEvals(services: ExtensionServices, target: unknown, args: GenerateArgs = {}): Promise<GenerateOutcome> {
  const found = await specOf(target, services);
  if (!found) return { status: 'no-spec' };
  const { spec, folder, harnessName } = found;
  const choice = args.provider ?? (await pickProvider('generate'));
  if (!choice) return { status: 'cancelled-before-start' };
  const config = readConfig(folder.uri);
  // The setting as the user wrote it is checked first (the message names it); then the harness's
  // own folder, which a symlink inside the harness folder could still lead elsewhere.
  const base = await resolveInside(folder.uri.fsPath, config.harnessFolder, 'agentSeer.harnessFolder');
  const out = base.ok ? await resolveInside(folder.uri.fsPath, path.join(config.harnessFolder, harnessName), 'the harness folder') : base;
  if (!out.ok) {
    services.log.error(out.message);
    void vscode.window.showErrorMessage(`Agent Seer: ${out.message}`);
    return { status: 'failed', message: out.message };
  }
  const outDir = out.path;

  let provider: Parameters<typeof runPipeline>[0]['provider'] = 'offline';
  if (choice.kind !== 'offline') {
    if (!requireTrust('call a language model', services.log)) return { status: 'untrusted' };
    try {
      const chat = await chatProviderFor(choice, services, folder.uri, 'generate');
      if (!chat) return { status: 'cancelled-before-start' };
      provider = { chat };
    } catch (err) {
      const message = errorMessage(err);
      void vscode.window.showErrorMessage(`Agent Seer: ${message}`);
      return { status: 'failed', message };
    }
  }

  services.log.info(`Generating evals for "${spec.name}" with ${choice.kind} into ${outDir}`);
  let result: PipelineResult;
  try {
    result = await runWithProgress(services, spec, provider, outDir, config);
  } catch (err) {
    // The folder was refused (not a harness of this spec) or another run holds it: nothing ran.
    if (!(err instanceof OutputFolderError || err instanceof FolderLockedError)) throw err;
    services.log.error(err.message);
    void vscode.window.showErrorMessage(`Agent Seer: ${err.message}`);
    return { status: 'failed', message: err.message };
  }
  await services.harnesses.reload(outDir);
  return reportOutcome(services, result);
}

/** Runs the pipeline under a cancellable progress notification. */
function runWithProgress(
  services: ExtensionServices,
  spec: Spec,
  provider: Parameters<typeof runPipeline>[0]['provider'],
  outDir: string,
  config: Config,
): Thenable<PipelineResult> {
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Generating evals for "${spec.name}"`, cancellable: true },
    async (progress, token) => {
      const abort = new AbortController();
      const sub = token.onCancellationRequested(() => abort.abort());
      try {
        return await runPipeline({
          spec,
          provider,
          outDir,
          promptsDir: vscode.Uri.joinPath(services.extensionUri, 'prompts').fsPath,
          simple: config.generation.simple,
          complex: config.generation.complex,
          concurrency: config.generation.concurrency,
          ...(config.generation.rpm ? { rpm: config.generation.rpm } : {}),
          fallback: config.generation.fallback,
          signal: abort.signal,
          // Progress arrives on every counter change: show at most a few updates a second.
          onProgress: throttleProgress(EDITOR_PROGRESS_EVERY_MS, (p: PipelineProgress) => progress.report({ message: describe(p) })),
        });
      } finally {
        sub.dispose();
      }
    },
  );
}

function reportOutcome(services: ExtensionServices, result: PipelineResult): PipelineResult {
  const c = result.counts;
  const summary = `${c.records} records (${c.byTier.simple} simple, ${c.byTier.complex} complex, ${c.multiTurn} multi-turn), coverage ${(c.coverage.ratio * 100).toFixed(0)}%`;
  services.log.info(
    `Run ${result.status}: ${summary}; ${result.llm.calls} LLM calls, ${result.llm.inputTokens + result.llm.outputTokens} tokens, ${(result.wallTimeMs / 1000).toFixed(1)} s`,
  );
  if (result.status === 'complete') void vscode.window.showInformationMessage(`Agent Seer: ${summary}.`);
  else if (result.status === 'cancelled')
    void vscode.window.showWarningMessage(`Agent Seer: cancelled; ${c.records} finished records are kept. Run again to resume.`);
  else if (result.status === 'partial') {
    void vscode.window.showWarningMessage(
      `Agent Seer: generation partial (${summary}): ${result.error ?? 'some LLM items failed'}. Run again to retry them; finished replies are cached.`,
    );
  } else void vscode.window.showErrorMessage(`Agent Seer: generation failed: ${result.error ?? 'unknown error'}`);
  return result;
}
