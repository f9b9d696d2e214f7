/**
 * Regenerate Stale on a harness run: the spec in the workspace changed since the harness was
 * generated; only the records of changed or removed tools are made again (core
 * `pipeline/regenerateStale.ts`), and the user is told what changed.
 */
import * as vscode from 'vscode';
import { diffSummary } from '../core/harness/specDiff';
import type { StaleRegeneration } from '../core/pipeline/regenerateStale';
import type { PipelineResult } from '../core/pipeline/runner';
import { readConfig } from './config';
import { workspacePrices } from './costEstimate';
import { generationModel, generationSettings, reportOutcome, runWithProgress, type GenerateArgs, type GenerateOutcome } from './generateCommand';
import type { HarnessNode } from './harnessTree';
import { pickProvider } from './providerChoice';
import type { ExtensionServices } from './services';
import { showError } from './log';

/** How the command ended: the regeneration's result, or why nothing ran. */
export type RegenerateOutcome = Exclude<GenerateOutcome, PipelineResult> | StaleRegeneration;

/** The command: on a run node of the Harnesses tree (its spec found in the workspace as the tree finds it). */
export async function regenerateStaleRecords(services: ExtensionServices, target: unknown, args: GenerateArgs = {}): Promise<RegenerateOutcome> {
  const node = target as HarnessNode | undefined;
  if (node?.kind !== 'run') {
    void vscode.window.showInformationMessage('Agent Seer: choose a harness run in the Harnesses view to regenerate its stale records.');
    return { status: 'no-spec' };
  }
  const harness = node.harness;
  const entry = services.harnessTree.specEntry(harness);
  if (!entry) {
    const message = `the spec of ${vscode.workspace.asRelativePath(harness.dir)} is not in the workspace (the manifest names ${harness.manifest?.spec.source ?? 'no file'})`;
    void showError(services.log, `Agent Seer: ${message}`);
    return { status: 'failed', message };
  }
  const choice = args.provider ?? (await pickProvider('generate'));
  if (!choice) return { status: 'cancelled-before-start' };
  const scope = vscode.Uri.file(harness.dir);
  const made = await generationModel(services, choice, scope, harness.dir, await workspacePrices(scope, services.log));
  if ('status' in made) return made;
  const spec = entry.spec;
  services.log.info(`Regenerating the stale records of ${harness.dir} for "${spec.name}" with ${choice.kind}`);
  const outcome = await runWithProgress(services, `Regenerating stale scenarios of "${spec.name}"`, {
    spec,
    outDir: harness.dir,
    ...(made.model ? { model: made.model } : {}),
    settings: generationSettings(readConfig(scope)),
    promptsDir: vscode.Uri.joinPath(services.extensionUri, 'prompts').fsPath,
    onlyStale: true,
  });
  if ('status' in outcome) return outcome;
  // A stale-only run's result carries the diff it acted on.
  const result = outcome.result as StaleRegeneration;
  await services.harnesses.reload(harness.dir);
  const changes = `Spec changes: ${diffSummary(result.diff)}; ${result.stale} stale record${result.stale === 1 ? '' : 's'}, ${result.kept} kept as they were, ${result.llm.calls} LLM calls.`;
  services.log.info(changes);
  if (result.stale === 0 && result.diff.added.length === 0) void vscode.window.showInformationMessage(`Agent Seer: nothing to regenerate. ${changes}`);
  else if (result.status === 'complete') void vscode.window.showInformationMessage(`Agent Seer: ${changes}`);
  else reportOutcome(services, result);
  return result;
}
