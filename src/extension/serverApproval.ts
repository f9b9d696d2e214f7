/**
 * The confirmation in front of starting a server a workspace defines: asked once per launch
 * (command, args, working folder, environment, URL, header names — see describeLaunch), again
 * whenever any of those changes. Trust is checked by the caller first (trust.ts).
 */
import * as vscode from 'vscode';
import type { ServerDefinition } from '../core/spec/configs/types';
import { describeLaunch } from '../core/spec/launchApproval';
import { workspaceRootOf } from '../core/workspace/layout';

const APPROVED_KEY = 'agentSeer.approvedServers';

export type ApprovalOutcome = 'approved' | 'declined';

export class ServerApproval {
  constructor(private readonly state: vscode.Memento) {}

  /**
   * The folder a definition's `${workspaceFolder}` stands for: its workspace folder, else (a config
   * VS Code does not place in one, e.g. reached through a symlink) the folder the config belongs to,
   * as the CLI reads it, so the confirmation never shows the variable unresolved.
   */
  private folderOf(def: ServerDefinition): string {
    return vscode.workspace.getWorkspaceFolder(vscode.Uri.file(def.file))?.uri.fsPath ?? workspaceRootOf(def.file);
  }

  isApproved(def: ServerDefinition): boolean {
    return this.state.get<string[]>(APPROVED_KEY, []).includes(describeLaunch(def, this.folderOf(def)).key);
  }

  async approve(def: ServerDefinition): Promise<void> {
    const list = this.state.get<string[]>(APPROVED_KEY, []);
    const key = describeLaunch(def, this.folderOf(def)).key;
    if (!list.includes(key)) await this.state.update(APPROVED_KEY, [...list, key]);
  }

  /** Asks once per launch, showing what will run. Never starts anything itself. */
  async request(def: ServerDefinition): Promise<ApprovalOutcome> {
    if (this.isApproved(def)) return 'approved';
    const { lines } = describeLaunch(def, this.folderOf(def));
    const choice = await vscode.window.showWarningMessage(
      `Start the MCP server "${def.name}" to list its tools?`,
      { modal: true, detail: `${lines.join('\n')}\nDefined in ${vscode.workspace.asRelativePath(def.file)}. Agent Seer only lists its tools.` },
      'Start Server',
    );
    if (choice !== 'Start Server') return 'declined';
    await this.approve(def);
    return 'approved';
  }
}
