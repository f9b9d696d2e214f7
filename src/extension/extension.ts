/**
 * Activation: build the services, register views and commands, return the API tests use.
 * Kept short: each part lives in its own module.
 */
import * as vscode from 'vscode';
import { AgentModeServers } from './agentModeServers';
import { AgentTests } from './agentTests';
import { registerCommands } from './commands';
import { SpecDiagnostics } from './diagnostics';
import { HarnessModel } from './harnessModel';
import { HarnessTree } from './harnessTree';
import { JudgmentDiagnostics } from './judgmentDiagnostics';
import { createLog, errorMessage, showError } from './log';
import { Secrets } from './secrets';
import { registerScenarioPanel } from './scenarioPanel';
import { registerMenuContext } from './menuContext';
import { deferred } from './onDemand';
import { registerReportSerializer } from './reportSerializer';
import { ServerApproval } from './serverApproval';
import type { ExtensionServices } from './services';
import { registerSourceLint } from './sourceLint';
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
    const diagnostics = new SpecDiagnostics(model, context.extensionUri);
    const harnesses = new HarnessModel(log);
    const harnessTree = new HarnessTree(harnesses, model);
    const harnessView = vscode.window.createTreeView('agentSeer.harnesses', { treeDataProvider: harnessTree, showCollapseAll: true });
    const judgmentDiagnostics = new JudgmentDiagnostics(harnesses);
    // The provider is built when a run starts, with the services (for the keys) by then complete.
    const agentTests = new AgentTests(
      harnesses,
      log,
      (choice, scope) => deferred().chatProviderFor(choice, services, scope, 'generate'),
      () => deferred().pickChatModelId('Run scenarios with which VS Code chat model?'),
    );
    const agentModeServers = new AgentModeServers(harnesses, context.extensionUri, log);
    const services: ExtensionServices = {
      log,
      model,
      specsTree,
      diagnostics,
      harnesses,
      harnessTree,
      harnessView,
      judgmentDiagnostics,
      agentTests,
      agentModeServers,
      approval: new ServerApproval(context.workspaceState),
      secrets: new Secrets(context.secrets),
      extensionUri: context.extensionUri,
      inputValues: new Map(),
    };
    context.subscriptions.push(
      ...[model, specsTree, diagnostics, harnesses, harnessTree, judgmentDiagnostics, agentTests, agentModeServers],
      vscode.window.createTreeView('agentSeer.specs', { treeDataProvider: specsTree, showCollapseAll: true }),
      harnessView,
      ...registerCommands(services),
      registerReportSerializer(services),
      registerScenarioPanel(services),
      registerMenuContext(model),
      ...registerSourceLint(model, context.extensionUri, log),
    );
    // The figure docs/benchmarks.md quotes (the integration tests read it from this log).
    log.info(`Agent Seer activated in ${Date.now() - started} ms`);
    return services;
  } catch (err) {
    // Activation failure is shown, not swallowed.
    void showError(log, `Agent Seer failed to start: ${errorMessage(err)}`);
    throw err;
  }
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
