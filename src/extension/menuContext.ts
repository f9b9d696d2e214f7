/**
 * Context keys the menus' `when` clauses read, kept in step with the workspace index:
 * `agentSeer.generateTargets` lists the files Generate Evals works on (tool spec snapshots and
 * MCP configs that define servers, as the CLI takes them), so the Explorer offers it there and
 * nowhere else (not on package.json or tsconfig.json).
 */
import * as vscode from 'vscode';
import type { WorkspaceModel } from './workspaceModel';

/** The context key: an array of file paths (`resourcePath in agentSeer.generateTargets`). */
export const GENERATE_TARGETS_KEY = 'agentSeer.generateTargets';

/** The paths Generate Evals accepts now. */
export function generateTargets(model: WorkspaceModel): string[] {
  const files = new Set([...model.specs.map((s) => s.file), ...model.definitions.map((d) => d.file)]);
  // `resourcePath` is the URI's path: the same as the file path on POSIX, slashes on Windows.
  return [...files].map((f) => vscode.Uri.file(f).path).sort();
}

/** Keeps the context keys current; returns what to dispose. */
export function registerMenuContext(model: WorkspaceModel): vscode.Disposable {
  const update = (): void => void vscode.commands.executeCommand('setContext', GENERATE_TARGETS_KEY, generateTargets(model));
  void model.ready.then(update);
  return model.onDidChange(update);
}
