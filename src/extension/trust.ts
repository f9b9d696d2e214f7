/**
 * Workspace Trust, the one gate in front of everything a workspace could turn against the user:
 * starting the servers it defines, and calling a model (which sends the user's key to an
 * endpoint, and the workspace's text to the model). Reading, linting and the offline generator
 * and judge stay available; the settings that name folders, URLs and models are declared
 * `restrictedConfigurations`, so in Restricted Mode VS Code gives us the user's values only.
 */
import * as vscode from 'vscode';

/** True in a trusted workspace; otherwise says why `action` is refused (with a way to trust) and returns false. */
export function requireTrust(action: string, log: vscode.LogOutputChannel): boolean {
  if (vscode.workspace.isTrusted) return true;
  log.warn(`Not allowed in an untrusted workspace: ${action}.`);
  void vscode.window
    .showErrorMessage(`Agent Seer does not ${action} in an untrusted workspace (Restricted Mode).`, 'Manage Workspace Trust')
    .then((c) => c && vscode.commands.executeCommand('workbench.trust.manage'));
  return false;
}
