/**
 * Which files count as open for `agentSeer.lint.scope` = `openFiles`: those shown in an editor
 * tab. VS Code keeps a closed tab's document alive for a while (`onDidCloseTextDocument` fires
 * late), so documents alone would keep a closed file's findings in Problems.
 */
import * as vscode from 'vscode';

function tabUri(tab: vscode.Tab): vscode.Uri | undefined {
  const input = tab.input;
  if (input instanceof vscode.TabInputText) return input.uri;
  if (input instanceof vscode.TabInputTextDiff) return input.modified;
  return undefined;
}

/** Whether a file is shown in any editor tab. */
export function isShownInTab(uri: vscode.Uri): boolean {
  const key = uri.toString();
  return vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => tabUri(t)?.toString() === key));
}

/** Calls back with the files whose tabs opened and those whose last tab closed. */
export function onDidChangeOpenFiles(listener: (opened: vscode.Uri[], closed: vscode.Uri[]) => void): vscode.Disposable {
  return vscode.window.tabGroups.onDidChangeTabs((e) => {
    const opened = [...e.opened, ...e.changed].map(tabUri).filter((u): u is vscode.Uri => u !== undefined);
    const closed = e.closed.map(tabUri).filter((u): u is vscode.Uri => u !== undefined && !isShownInTab(u));
    if (opened.length || closed.length) listener(opened, closed);
  });
}

/** The open document of a file, if VS Code has one. */
export function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
}
