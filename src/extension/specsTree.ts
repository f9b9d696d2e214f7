/**
 * The MCP Specs tree: server definitions (with the tools of their snapshot, when one exists)
 * and tool-spec files, each tool with its parameter count and a warning when it has findings.
 * getChildren reads the in-memory model only: no I/O, no popups.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { formatFixed, type Finding, type ToolMetrics } from '../core/complexity';
import type { ServerDefinition } from '../core/spec/configs/types';
import type { IndexedSpec } from '../core/discovery/workspaceIndex';
import { snapshotFileName } from '../core/spec/snapshotWriter';
import { readConfig } from './config';
import { Disposable } from './lifecycle';
import type { WorkspaceModel } from './workspaceModel';

export type SpecsNode =
  | { kind: 'server'; definition: ServerDefinition; snapshot?: IndexedSpec }
  | { kind: 'spec'; entry: IndexedSpec }
  | { kind: 'tool'; entry: IndexedSpec; index: number; metrics: ToolMetrics | undefined; findings: Finding[] };

/** contextValue strings, for menus in package.json. */
export const CONTEXT = {
  server: 'agentSeer.server',
  serverDisabled: 'agentSeer.server.disabled',
  spec: 'agentSeer.spec',
  tool: 'agentSeer.tool',
  toolWithFindings: 'agentSeer.tool.findings',
} as const;

export class SpecsTree extends Disposable implements vscode.TreeDataProvider<SpecsNode> {
  private readonly emitter = this.register(new vscode.EventEmitter<SpecsNode | undefined>());
  readonly onDidChangeTreeData = this.emitter.event;

  constructor(private readonly model: WorkspaceModel) {
    super();
    this.register(model.onDidChange(() => this.emitter.fire(undefined)));
  }

  refresh(): void {
    this.emitter.fire(undefined);
  }

  getChildren(node?: SpecsNode): SpecsNode[] {
    if (!node) {
      const specs = this.model.specs;
      const servers: SpecsNode[] = this.model.definitions.map((definition) => {
        const snapshot = this.snapshotOf(definition, specs);
        return snapshot ? { kind: 'server', definition, snapshot } : { kind: 'server', definition };
      });
      const claimed = new Set(servers.map((s) => (s.kind === 'server' ? s.snapshot?.file : undefined)));
      const files: SpecsNode[] = specs.filter((s) => !claimed.has(s.file)).map((entry) => ({ kind: 'spec', entry }));
      return [...servers, ...files];
    }
    if (node.kind === 'server') return node.snapshot ? this.toolsOf(node.snapshot) : [];
    if (node.kind === 'spec') return this.toolsOf(node.entry);
    return [];
  }

  /** The snapshot written for a definition: `<snapshot folder>/<server name>.json` in its folder. */
  private snapshotOf(def: ServerDefinition, specs: IndexedSpec[]): IndexedSpec | undefined {
    const folder = this.model.folderOf(def.file);
    if (!folder) return undefined;
    const expected = path.join(folder.uri.fsPath, readConfig(folder.uri).snapshotFolder, snapshotFileName(def.name));
    return specs.find((s) => s.file === expected);
  }

  private toolsOf(entry: IndexedSpec): SpecsNode[] {
    return entry.spec.tools.map((tool, index) => ({
      kind: 'tool',
      entry,
      index,
      metrics: entry.profile.perTool.find((m) => m.name === tool.name),
      findings: entry.profile.findings.filter((f) => f.toolIndex === index),
    }));
  }

  getTreeItem(node: SpecsNode): vscode.TreeItem {
    switch (node.kind) {
      case 'server': {
        const d = node.definition;
        const item = new vscode.TreeItem(d.name, node.snapshot ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
        const count = node.snapshot ? `${node.snapshot.spec.tools.length} tools` : 'no snapshot';
        item.description = `${d.transport}${d.disabled ? ' · disabled' : ''} · ${count}`;
        item.tooltip = new vscode.MarkdownString()
          .appendText(`${d.name} (${d.format}) in ${vscode.workspace.asRelativePath(d.file)}\n\n`)
          .appendText(d.command ? `${d.command} ${d.args.join(' ')}` : (d.url ?? ''));
        item.iconPath = new vscode.ThemeIcon(d.disabled ? 'debug-disconnect' : 'server-process');
        item.contextValue = d.disabled ? CONTEXT.serverDisabled : CONTEXT.server;
        item.resourceUri = vscode.Uri.file(d.file);
        item.id = `server:${d.file}#${d.name}`;
        return item;
      }
      case 'spec': {
        const { spec, profile } = node.entry;
        const item = new vscode.TreeItem(spec.name, vscode.TreeItemCollapsibleState.Collapsed);
        const problems = profile.findings.length;
        item.description = `${spec.tools.length} tools${problems ? ` · ${problems} findings` : ''}`;
        item.tooltip = new vscode.MarkdownString().appendText(
          `${vscode.workspace.asRelativePath(node.entry.file)}\nmean params ${formatFixed(profile.meanParams)}, max ${profile.maxParams}, optional ${(profile.optionalRatio * 100).toFixed(0)}%, max depth ${profile.maxDepth}`,
        );
        item.iconPath = new vscode.ThemeIcon('json');
        item.contextValue = CONTEXT.spec;
        item.resourceUri = vscode.Uri.file(node.entry.file);
        item.id = `spec:${node.entry.file}`;
        return item;
      }
      case 'tool': {
        const tool = node.entry.spec.tools[node.index];
        const item = new vscode.TreeItem(tool?.name ?? '?', vscode.TreeItemCollapsibleState.None);
        const params = node.metrics?.params ?? 0;
        item.description = `${params} param${params === 1 ? '' : 's'}`;
        const tip = new vscode.MarkdownString().appendText(tool?.description ?? '');
        for (const f of node.findings) tip.appendText(`\n\n⚠ ${f.code}: ${f.message}`);
        item.tooltip = tip;
        item.iconPath = node.findings.length
          ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'))
          : new vscode.ThemeIcon('symbol-method');
        item.contextValue = node.findings.length ? CONTEXT.toolWithFindings : CONTEXT.tool;
        item.id = `tool:${node.entry.file}#${node.index}`;
        const loc = node.entry.spec.locations?.[node.index]?.name;
        item.command = {
          command: 'agentSeer.revealTool',
          title: 'Show tool',
          arguments: [node.entry.file, loc?.offset ?? 0],
        };
        return item;
      }
    }
  }
}
