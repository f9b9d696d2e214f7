/**
 * The Harnesses tree: server → run → tier → category → scenario → turn → call, read from the
 * in-memory HarnessModel. Opening a scenario opens its record file.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { judgmentScores, type HarnessRecord } from '../core/harness/format';
import { toolHashes } from '../core/harness/hash';
import { diffSummary, diffToolHashes, sameTools } from '../core/harness/specDiff';
import { staleTools } from '../core/harness/stale';
import type { IndexedSpec } from '../core/discovery/workspaceIndex';
import { recordFile } from '../core/harness/store';
import type { HarnessModel, LoadedHarness } from './harnessModel';
import { Disposable } from './lifecycle';
import type { WorkspaceModel } from './workspaceModel';

export type HarnessNode =
  | { kind: 'server'; name: string; runs: LoadedHarness[] }
  | { kind: 'run'; harness: LoadedHarness }
  | { kind: 'tier'; harness: LoadedHarness; tier: string }
  | { kind: 'category'; harness: LoadedHarness; tier: string; category: string }
  | { kind: 'scenario'; harness: LoadedHarness; record: HarnessRecord }
  | { kind: 'turn'; harness: LoadedHarness; record: HarnessRecord; turn: number }
  | { kind: 'call'; harness: LoadedHarness; record: HarnessRecord; call: number };

export const HARNESS_CONTEXT = {
  run: 'agentSeer.harnessRun',
  scenario: 'agentSeer.scenario',
} as const;

/** The score shown for a record: an LLM judge's TC when there is one, else the exact score. */
export function displayScore(record: HarnessRecord): { label: string; value: number; judge: string } | undefined {
  const entries = Object.entries(record.judgments ?? {}).map(([judge, j]) => ({ judge, ...judgmentScores(j) }));
  for (const { judge, tc, coh } of entries) {
    if (tc === null) continue;
    return { label: `TC ${tc.toFixed(2)}${coh === null ? '' : ` · Coh ${coh.toFixed(2)}`}`, value: tc, judge };
  }
  for (const { judge, exact } of entries) if (exact !== null) return { label: `exact ${exact.toFixed(2)}`, value: exact, judge };
  return undefined;
}

function scoreColor(value: number): vscode.ThemeColor {
  if (value >= 0.9) return new vscode.ThemeColor('testing.iconPassed');
  if (value >= 0.7) return new vscode.ThemeColor('list.warningForeground');
  return new vscode.ThemeColor('testing.iconFailed');
}

export class HarnessTree extends Disposable implements vscode.TreeDataProvider<HarnessNode> {
  private readonly emitter = this.register(new vscode.EventEmitter<HarnessNode | undefined>());
  readonly onDidChangeTreeData = this.emitter.event;
  /** When on, a run lists its judged scenarios lowest score first instead of by tier and category. */
  private lowestFirst = false;
  /** Tool hashes per indexed spec object (a re-read spec is a new object, so this never goes stale). */
  private readonly hashCache = new WeakMap<object, Record<string, string>>();

  /** Switches between the tier/category layout and lowest-score-first; returns the new mode. */
  toggleLowestFirst(): boolean {
    this.lowestFirst = !this.lowestFirst;
    this.emitter.fire(undefined);
    return this.lowestFirst;
  }

  constructor(
    private readonly model: HarnessModel,
    private readonly workspace: WorkspaceModel,
  ) {
    super();
    this.register(model.onDidChange(() => this.emitter.fire(undefined)));
    // A spec edit can make records stale.
    this.register(workspace.onDidChange(() => this.emitter.fire(undefined)));
  }

  /**
   * The current tool hashes of the spec a harness was generated from, when that spec is in the
   * workspace: the file the manifest names, else the one spec of the same name.
   */
  currentToolHashes(harness: LoadedHarness): Record<string, string> | undefined {
    const entry = this.currentSpec(harness);
    if (!entry) return undefined;
    // Every scenario item asks; hash each indexed spec once (a re-read spec is a new object).
    let hashes = this.hashCache.get(entry.spec);
    if (!hashes) this.hashCache.set(entry.spec, (hashes = toolHashes(entry.spec)));
    return hashes;
  }

  /** The workspace's spec a harness was generated from: the file the manifest names, else the one spec of the same name. */
  currentSpec(harness: LoadedHarness): IndexedSpec | undefined {
    const m = harness.manifest;
    if (!m) return undefined;
    const specs = this.workspace.specs;
    const source = m.spec.source ? path.resolve(harness.dir, m.spec.source) : undefined;
    const byFile = specs.find((s) => s.file === source || s.file === m.spec.source);
    const byName = specs.filter((s) => s.spec.name === m.spec.name);
    return byFile ?? (byName.length === 1 ? byName[0] : undefined);
  }

  /** Tools of a record that changed in the workspace's spec since it was generated. */
  staleToolsOf(harness: LoadedHarness, record: HarnessRecord): string[] {
    const current = this.currentToolHashes(harness);
    return current ? staleTools(record, current) : [];
  }

  getChildren(node?: HarnessNode): HarnessNode[] {
    if (!node) {
      const byServer = new Map<string, LoadedHarness[]>();
      for (const h of this.model.all) {
        const name = h.manifest?.spec.name ?? path.basename(h.dir);
        byServer.set(name, [...(byServer.get(name) ?? []), h]);
      }
      return [...byServer].sort(([a], [b]) => a.localeCompare(b)).map(([name, runs]) => ({ kind: 'server', name, runs }));
    }
    switch (node.kind) {
      case 'server':
        return node.runs.map((harness) => ({ kind: 'run', harness }));
      case 'run': {
        if (this.lowestFirst) {
          return node.harness.records
            .map((record) => ({ record, score: displayScore(record)?.value ?? Number.POSITIVE_INFINITY }))
            .sort((a, b) => a.score - b.score || a.record.id.localeCompare(b.record.id))
            .map(({ record }) => ({ kind: 'scenario', harness: node.harness, record }));
        }
        const tiers = [...new Set(node.harness.records.map((r) => r.tier))].sort();
        return tiers.map((tier) => ({ kind: 'tier', harness: node.harness, tier }));
      }
      case 'tier': {
        const cats = [...new Set(node.harness.records.filter((r) => r.tier === node.tier).map((r) => r.category))].sort();
        return cats.map((category) => ({ kind: 'category', harness: node.harness, tier: node.tier, category }));
      }
      case 'category':
        return node.harness.records
          .filter((r) => r.tier === node.tier && r.category === node.category)
          .map((record) => ({ kind: 'scenario', harness: node.harness, record }));
      case 'scenario':
        return node.record.conversation.length
          ? node.record.conversation.map((_, turn) => ({ kind: 'turn', harness: node.harness, record: node.record, turn }))
          : node.record.expected_tools.map((_, call) => ({ kind: 'call', harness: node.harness, record: node.record, call }));
      case 'turn':
        return (node.record.conversation[node.turn]?.calls ?? []).map((call) => ({ kind: 'call', harness: node.harness, record: node.record, call }));
      case 'call':
        return [];
    }
  }

  getTreeItem(node: HarnessNode): vscode.TreeItem {
    const C = vscode.TreeItemCollapsibleState;
    switch (node.kind) {
      case 'server': {
        const item = new vscode.TreeItem(node.name, C.Expanded);
        item.description = `${node.runs.length} run${node.runs.length === 1 ? '' : 's'}`;
        item.iconPath = new vscode.ThemeIcon('server-process');
        item.id = `hserver:${node.name}`;
        return item;
      }
      case 'run': {
        const m = node.harness.manifest;
        const item = new vscode.TreeItem(vscode.workspace.asRelativePath(node.harness.dir), C.Collapsed);
        const current = this.currentToolHashes(node.harness);
        const stale = current ? node.harness.records.filter((r) => staleTools(r, current).length).length : 0;
        const staleText = stale ? ` · ${stale} stale` : '';
        item.description = m
          ? `${m.provider}${m.model ? `/${m.model}` : ''} · ${m.status} · ${node.harness.records.length} records${staleText}`
          : `${node.harness.records.length} records`;
        // What changed in the spec: since generation (stale records), and what the last stale-only run found.
        const drift = m && current ? diffToolHashes(m.spec.toolHashes, current) : undefined;
        const driftText = [
          drift && !sameTools(drift) ? `\nSpec changed since: ${diffSummary(drift)}${stale ? `; ${stale} stale (Regenerate Stale)` : ''}` : '',
          m?.drift ? `\nLast regenerated for spec changes: ${diffSummary({ ...m.drift, unchanged: [] })}; ${m.drift.kept} kept, ${m.drift.written} new` : '',
        ].join('');
        item.tooltip = new vscode.MarkdownString().appendText(
          m
            ? `Generated ${m.timings.startedAt} by ${m.provider} ${m.model}\nCoverage ${(m.counts.coverage.ratio * 100).toFixed(0)}%, ${m.counts.multiTurn} multi-turn records${driftText}`
            : 'No valid manifest',
        );
        item.iconPath = new vscode.ThemeIcon(m?.status === 'complete' ? 'beaker' : m?.status === 'running' ? 'sync' : 'warning');
        item.contextValue = HARNESS_CONTEXT.run;
        item.resourceUri = vscode.Uri.file(node.harness.dir);
        item.id = `hrun:${node.harness.dir}`;
        return item;
      }
      case 'tier': {
        const n = node.harness.records.filter((r) => r.tier === node.tier).length;
        const item = new vscode.TreeItem(node.tier, C.Collapsed);
        item.description = `${n}`;
        item.iconPath = new vscode.ThemeIcon(node.tier === 'complex' ? 'layers' : 'circle-outline');
        item.id = `htier:${node.harness.dir}#${node.tier}`;
        return item;
      }
      case 'category': {
        const item = new vscode.TreeItem(node.category, C.Collapsed);
        item.iconPath = new vscode.ThemeIcon('folder');
        item.id = `hcat:${node.harness.dir}#${node.tier}#${node.category}`;
        return item;
      }
      case 'scenario': {
        const r = node.record;
        const item = new vscode.TreeItem(r.title, C.Collapsed);
        const score = displayScore(r);
        const shape = `${r.expected_tools.length} call${r.expected_tools.length === 1 ? '' : 's'}${r.conversation.length ? ` · ${r.conversation.length} turns` : ''}`;
        const stale = this.staleToolsOf(node.harness, r);
        item.description = `${stale.length ? 'stale · ' : ''}${score ? `${score.label} · ${shape}` : shape}`;
        const tip = new vscode.MarkdownString().appendText(score ? `${r.prompt}\n\n${score.label} (${score.judge})` : r.prompt);
        if (stale.length) tip.appendText(`\n\nStale: ${stale.join(', ')} changed in the spec since this scenario was generated; generate again to refresh it.`);
        item.tooltip = tip;
        const icon = r.conversation.length ? 'comment-discussion' : 'comment';
        item.iconPath = score
          ? new vscode.ThemeIcon(score.value >= 0.9 ? 'pass' : score.value >= 0.7 ? 'warning' : 'error', scoreColor(score.value))
          : new vscode.ThemeIcon(icon);
        item.contextValue = HARNESS_CONTEXT.scenario;
        const file = vscode.Uri.file(recordFile(node.harness, r));
        item.resourceUri = file;
        item.command = { command: 'vscode.open', title: 'Open Scenario', arguments: [file] };
        item.id = `hscn:${node.harness.dir}#${r.id}`;
        return item;
      }
      case 'turn': {
        const t = node.record.conversation[node.turn];
        const item = new vscode.TreeItem(`Turn ${node.turn + 1}`, C.Collapsed);
        item.description = t?.prompt ?? '';
        item.tooltip = new vscode.MarkdownString().appendText(`${t?.prompt ?? ''}\n\n→ ${t?.followup ?? ''}`);
        item.iconPath = new vscode.ThemeIcon('comment');
        item.id = `hturn:${node.harness.dir}#${node.record.id}#${node.turn}`;
        return item;
      }
      case 'call': {
        const c = node.record.expected_tools[node.call];
        const item = new vscode.TreeItem(c?.name ?? '?', C.None);
        item.description = c ? JSON.stringify(c.arguments) : '';
        item.tooltip = new vscode.MarkdownString().appendText(c?.explanation ?? '');
        item.iconPath = new vscode.ThemeIcon('symbol-method');
        item.id = `hcall:${node.harness.dir}#${node.record.id}#${node.call}`;
        return item;
      }
    }
  }
}
