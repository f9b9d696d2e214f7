import type * as vscode from 'vscode';
import type { AgentModeServers } from './agentModeServers';
import type { AgentTests } from './agentTests';
import type { SpecDiagnostics } from './diagnostics';
import type { HarnessModel } from './harnessModel';
import type { HarnessNode, HarnessTree } from './harnessTree';
import type { JudgmentDiagnostics } from './judgmentDiagnostics';
import type { Secrets } from './secrets';
import type { ServerApproval } from './serverApproval';
import type { SpecsTree } from './specsTree';
import type { WorkspaceModel } from './workspaceModel';

/** What commands and views share; built once in activate. */
export interface ExtensionServices {
  log: vscode.LogOutputChannel;
  model: WorkspaceModel;
  specsTree: SpecsTree;
  diagnostics: SpecDiagnostics;
  harnesses: HarnessModel;
  harnessTree: HarnessTree;
  /** The Harnesses view (tests reveal nodes in it). */
  harnessView: vscode.TreeView<HarnessNode>;
  judgmentDiagnostics: JudgmentDiagnostics;
  /** The Testing view's controller and run profiles (agents run against harnesses). */
  agentTests: AgentTests;
  /** Harnesses and chosen scenarios offered to VS Code's agent mode as MCP servers. */
  agentModeServers: AgentModeServers;
  approval: ServerApproval;
  secrets: Secrets;
  /** The extension's folder (prompts/, media/, README.md). */
  extensionUri: vscode.Uri;
  /** `${input:id}` values typed this session; kept in memory only. */
  inputValues: Map<string, string>;
}
