/**
 * Findings where tools are defined: diagnostics in server sources, their quick fixes and hover.
 * One registration for `activate`.
 */
import type * as vscode from 'vscode';
import { registerFindingActions } from './findingActions';
import { SourceDiagnostics } from './sourceDiagnostics';
import type { WorkspaceModel } from './workspaceModel';

/** Starts source diagnostics and registers their code actions; dispose to stop both. */
export function registerSourceLint(model: WorkspaceModel, extensionUri: vscode.Uri, log: vscode.LogOutputChannel): vscode.Disposable[] {
  const sources = new SourceDiagnostics(model, extensionUri, log);
  return [sources, ...registerFindingActions(sources, extensionUri)];
}
