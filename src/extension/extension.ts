/**
 * Activation: build the services, register views and commands, return the API tests use.
 * Kept short: each part lives in its own module.
 */
import * as vscode from 'vscode';
import { AgentTests } from './agentTests';
import { registerCommands } from './commands';
import { SpecDiagnostics } from './diagnostics';
import { HarnessModel } from './harnessModel';
import { HarnessTree } from './harnessTree';
import { JudgmentDiagnostics } from './judgmentDiagnostics';
import { createLog, errorMessage } from './log';
import { Secrets } from './secrets';
import { deferred } from './onDemand';
import { registerReportSerializer } from './reportSerializer';
import { ServerApproval } from './serverApproval';
import type { ExtensionServices } from './services';
import { SpecsTree } from './specsTree';
import { WorkspaceModel } from './workspaceModel';

/** What `activate` returns: the services, for integration tests and other extensions. */
export type AgentSeerApi = ExtensionServices;

export function activate(context: vscode.ExtensionContext): AgentSeerApi {
  const started = Date.now();
  const log = createLog();
  context.subscriptions.push(log);
  try {
    const model = new WorkspaceModel(log);
    const specsTree = new SpecsTree(model);
    const diagnostics = new SpecDiagnostics(model, vscode.Uri.joinPath(context.extensionUri, 'README.md'));
    const harnesses = new HarnessModel(log);
    const harnessTree = new HarnessTree(harnesses, model);
    const judgmentDiagnostics = new JudgmentDiagnostics(harnesses);
    // The provider is built when a run starts, with the services (for the keys) by then complete.
    const agentTests = new AgentTests(harnesses, log, (kind, scope) => deferred().chatProviderFor({ kind }, services, scope, 'generate'));
    const services: ExtensionServices = {
      log,
      model,
      specsTree,
      diagnostics,
      harnesses,
      harnessTree,
      judgmentDiagnostics,
      agentTests,
      approval: new ServerApproval(context.workspaceState),
      secrets: new Secrets(context.secrets),
      extensionUri: context.extensionUri,
      inputValues: new Map(),
    };
    context.subscriptions.push(
      ...[model, specsTree, diagnostics, harnesses, harnessTree, judgmentDiagnostics, agentTests],
      vscode.window.createTreeView('agentSeer.specs', { treeDataProvider: specsTree, showCollapseAll: true }),
      vscode.window.createTreeView('agentSeer.harnesses', { treeDataProvider: harnessTree, showCollapseAll: true }),
      ...registerCommands(services),
      registerReportSerializer(services),
    );
    // The figure the README's benchmarks quote (the integration tests read it from this log).
    log.info(`Agent Seer activated in ${Date.now() - started} ms`);
    return services;
  } catch (err) {
    // Activation failure is shown, not swallowed.
    log.error(`Activation failed: ${errorMessage(err)}`);
    void vscode.window.showErrorMessage(`Agent Seer failed to start: ${errorMessage(err)}`);
    throw err;
  }
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
