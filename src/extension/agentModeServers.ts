/**
 * Harnesses served to VS Code's own agent mode: an MCP server definition provider
 * (`vscode.lm.registerMcpServerDefinitionProvider`) that offers one stdio server per harness —
 * `agent-seer serve <harness>` run by the bundled `dist/cli.js` — and one per scenario the user
 * chose with "Serve Scenario to Agent Mode" (`--scenario ID`), so Copilot's agent (or any agent of
 * the editor) can be tried against a scenario. Starting a server is gated by Workspace Trust like
 * every server start: an untrusted workspace gets no definitions, and a start that races a trust
 * change is refused in `resolveMcpServerDefinition`.
 */
import * as vscode from 'vscode';
import type { HarnessRecord } from '../core/harness/format';
import type { HarnessModel, LoadedHarness } from './harnessModel';
import { Disposable } from './lifecycle';
import { requireTrust } from './trust';

/** The provider's id, as declared in package.json `contributes.mcpServerDefinitionProviders`. */
export const MCP_PROVIDER_ID = 'agentSeer.harnessServers';

/** A scenario chosen for agent mode. */
export interface ServedScenario {
  harnessDir: string;
  scenarioId: string;
}

export class AgentModeServers extends Disposable {
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  /** Scenarios served on their own, by `<harness dir>#<scenario id>`. */
  private readonly scenarios = new Map<string, ServedScenario>();
  /** The provider handed to VS Code (also called directly by tests). */
  readonly provider: vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition> = {
    onDidChangeMcpServerDefinitions: this.changed.event,
    provideMcpServerDefinitions: () => this.definitions(),
    resolveMcpServerDefinition: (server) => {
      // Trust may have been revoked since the list was given: no server starts untrusted.
      if (!requireTrust(`start the MCP server "${server.label}"`, this.log)) return undefined;
      return server;
    },
  };

  constructor(
    private readonly harnesses: HarnessModel,
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this.register(harnesses.onDidChange(() => this.changed.fire()));
    this.register(vscode.workspace.onDidGrantWorkspaceTrust(() => this.changed.fire()));
    // Hosts before the MCP API (it is in the pinned typings, 1.101) have no such function.
    if (typeof vscode.lm.registerMcpServerDefinitionProvider === 'function')
      this.register(vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, this.provider));
    else log.warn('This VS Code has no MCP server definition API: harnesses are not offered to agent mode.');
  }

  /** One definition per harness, then one per scenario served on its own; none in an untrusted workspace. */
  definitions(): vscode.McpStdioServerDefinition[] {
    if (!vscode.workspace.isTrusted) return [];
    const out = this.harnesses.all.map((h) => this.definition(h));
    for (const s of this.scenarios.values()) {
      const h = this.harnesses.all.find((x) => x.dir === s.harnessDir);
      if (h?.records.some((r) => r.id === s.scenarioId)) out.push(this.definition(h, s.scenarioId));
    }
    return out;
  }

  /**
   * Adds a scenario's own server to agent mode (the scenario from the Harnesses tree, or picked);
   * returns its definition, or undefined when refused or cancelled.
   */
  async serveScenario(target?: ServedScenario): Promise<vscode.McpStdioServerDefinition | undefined> {
    if (!requireTrust('serve a scenario to agent mode', this.log)) return undefined;
    const chosen = target ?? (await this.pickScenario());
    if (!chosen) return undefined;
    const harness = this.harnesses.all.find((h) => h.dir === chosen.harnessDir);
    if (!harness?.records.some((r) => r.id === chosen.scenarioId))
      throw new Error(`no scenario ${chosen.scenarioId} in ${vscode.workspace.asRelativePath(chosen.harnessDir)}`);
    this.scenarios.set(`${chosen.harnessDir}#${chosen.scenarioId}`, chosen);
    this.changed.fire();
    const definition = this.definition(harness, chosen.scenarioId);
    this.log.info(`Serving scenario ${chosen.scenarioId} to agent mode as "${definition.label}".`);
    void vscode.window.showInformationMessage(
      `Agent Seer: "${definition.label}" is available to agent mode; start it from the MCP servers list and ask the agent the scenario's prompt.`,
    );
    return definition;
  }

  private async pickScenario(): Promise<ServedScenario | undefined> {
    const items = this.harnesses.all.flatMap((h) =>
      h.records.map((r: HarnessRecord) => ({ label: r.id, description: `${r.tier} · ${vscode.workspace.asRelativePath(h.dir)}`, detail: r.prompt, h, r })),
    );
    if (!items.length) {
      void vscode.window.showInformationMessage('No harness scenarios in this workspace.');
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(items, { title: 'Serve which scenario to agent mode?', matchOnDetail: true });
    return pick && { harnessDir: pick.h.dir, scenarioId: pick.r.id };
  }

  /**
   * `agent-seer serve <dir> [--scenario ID]` with the extension host's own runtime (Electron run
   * as Node where it is Electron), in the harness's workspace folder (where its spec is found).
   */
  private definition(h: LoadedHarness, scenarioId?: string): vscode.McpStdioServerDefinition {
    const cli = vscode.Uri.joinPath(this.extensionUri, 'dist', 'cli.js').fsPath;
    const rel = vscode.workspace.asRelativePath(h.dir);
    const label = scenarioId ? `Agent Seer: ${rel} — ${scenarioId}` : `Agent Seer: ${rel}`;
    const def = new vscode.McpStdioServerDefinition(
      label,
      process.execPath,
      [cli, 'serve', h.dir, ...(scenarioId ? ['--scenario', scenarioId] : [])],
      { ELECTRON_RUN_AS_NODE: '1' },
      // A new version makes the editor list the tools again: the harness changed.
      `${h.manifest?.spec.hash ?? ''}:${h.manifest?.timings.finishedAt ?? ''}:${h.records.length}`,
    );
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(h.dir));
    def.cwd = folder?.uri ?? vscode.Uri.file(h.dir);
    return def;
  }
}
