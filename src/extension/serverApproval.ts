/**
 * The trust gate in front of starting a server a workspace defines: never in an untrusted
 * workspace, and only after the user confirmed that exact command (or URL) once.
 */
import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import type { ServerDefinition } from '../core/spec/configs/types';

const APPROVED_KEY = 'agentSeer.approvedServers';

/** What is approved: the definition's identity and everything that decides what runs. */
export function approvalKey(def: ServerDefinition): string {
  const what = JSON.stringify([def.file, def.name, def.transport, def.command, def.args, def.cwd, def.url]);
  return createHash('sha256').update(what).digest('hex');
}

export type ApprovalOutcome = 'approved' | 'untrusted' | 'declined';

export class ServerApproval {
  constructor(private readonly state: vscode.Memento) {}

  isApproved(def: ServerDefinition): boolean {
    return this.state.get<string[]>(APPROVED_KEY, []).includes(approvalKey(def));
  }

  async approve(def: ServerDefinition): Promise<void> {
    const list = this.state.get<string[]>(APPROVED_KEY, []);
    const key = approvalKey(def);
    if (!list.includes(key)) await this.state.update(APPROVED_KEY, [...list, key]);
  }

  /** Checks trust, then asks once per server command. Never starts anything itself. */
  async request(def: ServerDefinition): Promise<ApprovalOutcome> {
    if (!vscode.workspace.isTrusted) return 'untrusted';
    if (this.isApproved(def)) return 'approved';
    const what = def.transport === 'stdio' ? `${def.command ?? ''} ${def.args.join(' ')}`.trim() : def.url ?? '';
    const choice = await vscode.window.showWarningMessage(
      `Start the MCP server "${def.name}" to list its tools?`,
      { modal: true, detail: `It runs: ${what}\nDefined in ${vscode.workspace.asRelativePath(def.file)}. Agent Seer only lists its tools.` },
      'Start Server',
    );
    if (choice !== 'Start Server') return 'declined';
    await this.approve(def);
    return 'approved';
  }
}
