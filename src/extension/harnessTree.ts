/**
 * The Harnesses tree: server → run → tier → category → scenario → turn → call, read from the
 * in-memory HarnessModel. Every scenario shows its honest verdict (core/judge/verdict.ts: fail,
 * outdated judgment, pass, not judged) as a coloured icon; run, tier and category nodes add them
 * up. Opening a scenario opens the scenario panel; its record JSON is an inline action.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HarnessRecord } from '../core/harness/format';
import { toolHashes } from '../core/harness/hash';
import { diffSummary, diffToolHashes, sameTools } from '../core/harness/specDiff';
import { staleTools } from '../core/harness/stale';
import { offlineStages } from '../core/harness/offlineStages';
import type { IndexedSpec } from '../core/discovery/workspaceIndex';
import { recordFile } from '../core/harness/store';
import { countVerdicts, describeCounts, headlineScore, recordVerdict, type RecordVerdict, type VerdictCounts, type VerdictState } from '../core/judge/verdict';
import type { Spec } from '../core/spec/model';
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

/** Icon and theme colour of each verdict state (the Testing view's colours, so themes agree). */
const STATE_ICONS: Record<VerdictState, { icon: string; color: string; words: string }> = {
  fail: { icon: 'error', color: 'testing.iconFailed', words: 'Failed' },
  stale: { icon: 'history', color: 'testing.iconQueued', words: 'Judgment outdated: the record or its spec changed since it was judged' },
  pass: { icon: 'pass', color: 'testing.iconPassed', words: 'Passed' },
  'not-judged': { icon: 'circle-outline', color: 'testing.iconUnset', words: 'Not judged' },
};

/** The icon of a verdict state. */
export function stateIcon(state: VerdictState): vscode.ThemeIcon {
  const s = STATE_ICONS[state];
  return new vscode.ThemeIcon(s.icon, new vscode.ThemeColor(s.color));
}

/** The worst state among counts, for an aggregate node's icon (undefined when nothing was judged). */
function worst(c: VerdictCounts): VerdictState | undefined {
  return c.fail ? 'fail' : c.stale ? 'stale' : c.pass ? 'pass' : undefined;
}

export class HarnessTree extends Disposable implements vscode.TreeDataProvider<HarnessNode> {
  private readonly emitter = this.register(new vscode.EventEmitter<HarnessNode | undefined>());
  readonly onDidChangeTreeData = this.emitter.event;
  /** When on, a run lists its judged scenarios lowest score first instead of by tier and category. */
  private lowestFirst = false;
  /** Tool hashes per indexed spec object (a re-read spec is a new object, so this never goes stale). */
  private readonly hashCache = new WeakMap<object, Record<string, string>>();
  /** Verdicts per record object, with the spec object they were computed against (both are replaced when re-read). */
  private readonly verdictCache = new WeakMap<HarnessRecord, { spec: Spec | undefined; verdict: RecordVerdict }>();

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
    const entry = this.specEntry(harness);
    if (!entry) return undefined;
    // Every scenario item asks; hash each indexed spec once (a re-read spec is a new object).
    let hashes = this.hashCache.get(entry.spec);
    if (!hashes) this.hashCache.set(entry.spec, (hashes = toolHashes(entry.spec)));
    return hashes;
  }

  /** The workspace's spec entry (file and spec) a harness was generated from: the file the manifest names, else the one spec of the same name. */
  specEntry(harness: LoadedHarness): IndexedSpec | undefined {
    const m = harness.manifest;
    if (!m) return undefined;
    const specs = this.workspace.specs;
    const source = m.spec.source ? path.resolve(harness.dir, m.spec.source) : undefined;
    const byFile = specs.find((s) => s.file === source || s.file === m.spec.source);
    const byName = specs.filter((s) => s.spec.name === m.spec.name);
    return byFile ?? (byName.length === 1 ? byName[0] : undefined);
  }

  /** The spec in the workspace a harness was generated from, when it is there. */
  currentSpec(harness: LoadedHarness): Spec | undefined {
    return this.specEntry(harness)?.spec;
  }

  /** A record's verdict against the workspace's spec (cached until the record or spec is re-read). */
  verdictOf(harness: LoadedHarness, record: HarnessRecord): RecordVerdict {
    const spec = this.currentSpec(harness);
    const cached = this.verdictCache.get(record);
    if (cached && cached.spec === spec) return cached.verdict;
    const verdict = recordVerdict(record, spec ? { spec } : {});
    this.verdictCache.set(record, { spec, verdict });
    return verdict;
  }

  /** Verdict counts of some records of a harness. */
  countsOf(harness: LoadedHarness, records: readonly HarnessRecord[]): VerdictCounts {
    return countVerdicts(records.map((r) => this.verdictOf(harness, r).state));
  }

  /** Record ids in the order the tree lists them (what previous/next walks). */
  siblingsOf(harness: LoadedHarness): string[] {
    const walk = (n: HarnessNode): string[] => (n.kind === 'scenario' ? [n.record.id] : this.getChildren(n).flatMap(walk));
    return walk({ kind: 'run', harness });
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
            .map((record) => ({ record, score: headlineScore(record)?.value ?? Number.POSITIVE_INFINITY }))
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

  /** The node above another (what `TreeView.reveal` walks up): nodes carry their harness, so only the server node needs a look-up. */
  getParent(node: HarnessNode): HarnessNode | undefined {
    switch (node.kind) {
      case 'server':
        return undefined;
      case 'run':
        return this.getChildren().find((s) => s.kind === 'server' && s.runs.includes(node.harness));
      case 'tier':
        return { kind: 'run', harness: node.harness };
      case 'category':
        return { kind: 'tier', harness: node.harness, tier: node.tier };
      case 'scenario':
        return this.lowestFirst
          ? { kind: 'run', harness: node.harness }
          : { kind: 'category', harness: node.harness, tier: node.record.tier, category: node.record.category };
      case 'turn':
        return { kind: 'scenario', harness: node.harness, record: node.record };
      case 'call': {
        const turn = node.record.conversation.findIndex((t) => t.calls.includes(node.call));
        return turn >= 0
          ? { kind: 'turn', harness: node.harness, record: node.record, turn }
          : { kind: 'scenario', harness: node.harness, record: node.record };
      }
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
        const counts = describeCounts(this.countsOf(node.harness, node.harness.records));
        const offlineCount = node.harness.records.filter((r) => offlineStages(r).length > 0).length;
        const offlineText = offlineCount ? ` · ${offlineCount} offline templates` : '';
        item.description = m
          ? `${counts} · ${m.provider}${m.model ? `/${m.model}` : ''} · ${m.status} · ${node.harness.records.length} records${offlineText}${staleText}`
          : `${counts} · ${node.harness.records.length} records`;
        // What changed in the spec: since generation (stale records), and what the last stale-only run found.
        const drift = m && current ? diffToolHashes(m.spec.toolHashes, current) : undefined;
        const driftText = [
          drift && !sameTools(drift) ? `\nSpec changed since: ${diffSummary(drift)}${stale ? `; ${stale} stale (Regenerate Stale)` : ''}` : '',
          m?.drift ? `\nLast regenerated for spec changes: ${diffSummary({ ...m.drift, unchanged: [] })}; ${m.drift.kept} kept, ${m.drift.written} new` : '',
        ].join('');
        item.tooltip = new vscode.MarkdownString().appendText(
          `${vscode.workspace.asRelativePath(node.harness.dir)}\n${counts}\n` +
            (m
              ? `Generated ${m.timings.startedAt} by ${m.provider} ${m.model} (${m.status})${m.status !== 'complete' && m.error ? `: ${m.error}` : ''}\nCoverage ${(m.counts.coverage.ratio * 100).toFixed(0)}%, ${m.counts.multiTurn} multi-turn records${driftText}`
              : 'No valid manifest'),
        );
        // A run that did not complete keeps its warning; otherwise the worst verdict colours it.
        const runState = worst(this.countsOf(node.harness, node.harness.records));
        item.iconPath =
          m?.status === 'running'
            ? new vscode.ThemeIcon('sync')
            : m?.status === 'pending'
              ? new vscode.ThemeIcon('watch') // batch jobs still running at the provider (--no-wait)
              : m?.status !== 'complete'
                ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'))
                : runState
                  ? new vscode.ThemeIcon('beaker', new vscode.ThemeColor(STATE_ICONS[runState].color))
                  : new vscode.ThemeIcon('beaker');
        item.contextValue = HARNESS_CONTEXT.run;
        item.resourceUri = vscode.Uri.file(node.harness.dir);
        item.id = `hrun:${node.harness.dir}`;
        return item;
      }
      case 'tier': {
        const records = node.harness.records.filter((r) => r.tier === node.tier);
        const counts = this.countsOf(node.harness, records);
        const item = new vscode.TreeItem(node.tier, C.Collapsed);
        item.description = `${records.length} · ${describeCounts(counts)}`;
        item.tooltip = new vscode.MarkdownString().appendText(`${node.tier}: ${records.length} records\n${describeCounts(counts)}`);
        const state = worst(counts);
        item.iconPath = new vscode.ThemeIcon(
          node.tier === 'complex' ? 'layers' : 'circle-outline',
          state ? new vscode.ThemeColor(STATE_ICONS[state].color) : undefined,
        );
        item.id = `htier:${node.harness.dir}#${node.tier}`;
        return item;
      }
      case 'category': {
        const records = node.harness.records.filter((r) => r.tier === node.tier && r.category === node.category);
        const counts = this.countsOf(node.harness, records);
        const item = new vscode.TreeItem(node.category, C.Collapsed);
        item.description = `${records.length} · ${describeCounts(counts)}`;
        item.tooltip = new vscode.MarkdownString().appendText(`${node.category} (${node.tier}): ${records.length} records\n${describeCounts(counts)}`);
        const state = worst(counts);
        item.iconPath = new vscode.ThemeIcon('folder', state ? new vscode.ThemeColor(STATE_ICONS[state].color) : undefined);
        item.id = `hcat:${node.harness.dir}#${node.tier}#${node.category}`;
        return item;
      }
      case 'scenario': {
        const r = node.record;
        const item = new vscode.TreeItem(r.title, C.Collapsed);
        const verdict = this.verdictOf(node.harness, r);
        const score = verdict.score;
        const shape = `${r.expected_tools.length} call${r.expected_tools.length === 1 ? '' : 's'}${r.conversation.length ? ` · ${r.conversation.length} turns` : ''}`;
        const stale = this.staleToolsOf(node.harness, r);
        const offline = offlineStages(r);
        item.description = `${stale.length ? 'stale · ' : ''}${offline.length ? 'offline template · ' : ''}${score ? `${score.label} · ${shape}` : shape}`;
        // The full label first: the sidebar cuts titles and descriptions at its width.
        const tip = new vscode.MarkdownString().appendText(
          `${r.title}\n${STATE_ICONS[verdict.state].words}${score ? ` · ${score.label} (${score.judge})` : ''}\n\n${r.prompt}`,
        );
        if (verdict.failures.length)
          tip.appendText(
            `\n\nFails:\n${verdict.failures
              .slice(0, 8)
              .map((f) => `- ${f}`)
              .join('\n')}`,
          );
        if (verdict.failures.length > 8) tip.appendText(`\n…and ${verdict.failures.length - 8} more (open the scenario)`);
        if (verdict.staleJudges === null && r.judgments)
          tip.appendText('\n\nWhether the judgment is current cannot be told: the spec is not in the workspace.');
        if (offline.length)
          tip.appendText(
            `\n\nOffline template: the ${offline.join(' and ')} stage${offline.length === 1 ? ' was' : 's were'} written by the offline generator (--fallback offline), not the model.`,
          );
        if (stale.length) tip.appendText(`\n\nStale: ${stale.join(', ')} changed in the spec since this scenario was generated; generate again to refresh it.`);
        item.tooltip = tip;
        item.iconPath = stateIcon(verdict.state);
        item.contextValue = HARNESS_CONTEXT.scenario;
        item.resourceUri = vscode.Uri.file(recordFile(node.harness, r));
        item.command = { command: 'agentSeer.openScenario', title: 'Open Scenario', arguments: [node] };
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
