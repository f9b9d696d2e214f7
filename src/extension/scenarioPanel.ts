/**
 * The scenario panel: one webview per editor group showing one scenario (core/report/scenarioView.ts
 * builds what it shows; media/scenario/scenario.ts draws it). Opening another scenario in the same
 * group reuses the panel. Strict CSP with a fresh nonce, the page script and styles loaded from the
 * extension, the data sent by message after the page says `ready` (never spliced into the HTML),
 * and the page's state (harness folder and record id) restores it after a reload.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import * as vscode from 'vscode';
import { readRuns } from '../core/agents/readRuns';
import { recordFile } from '../core/harness/store';
import { recordCallOffset } from '../core/judge/locate';
import { isScenarioViewState, parseScenarioMessage, type ScenarioMessage, type ScenarioRendered } from '../core/report/scenarioProtocol';
import { scenarioViewModel, type ScenarioViewModel } from '../core/report/scenarioView';
import type { LoadedHarness } from './harnessModel';
import type { HarnessNode } from './harnessTree';
import { Disposable } from './lifecycle';
import { errorMessage } from './log';
import type { ExtensionServices } from './services';

export const SCENARIO_VIEW_TYPE = 'agentSeer.scenario';

/** The page's HTML: no data in it, only the nonce'd script and the extension's stylesheet. */
function pageHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'scenario.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'scenario', 'scenario.css'));
  const csp = `default-src 'none'; style-src ${webview.cspSource}; script-src 'nonce-${nonce}';`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${style.toString()}">
<title>Scenario</title>
</head>
<body>
<main id="root" aria-live="polite"><p>Loading the scenario…</p></main>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}

export class ScenarioPanel extends Disposable {
  private static readonly panels = new Set<ScenarioPanel>();
  private harnessDir = '';
  private recordId = '';
  private ready = false;
  private model: ScenarioViewModel | undefined;
  private rendered: ScenarioRendered | undefined;
  /** Whether the webview holds the page (it holds a plain notice while the scenario is gone). */
  private showsPage = false;

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly services: ExtensionServices,
  ) {
    super();
    ScenarioPanel.panels.add(this);
    panel.webview.options = ScenarioPanel.options(services.extensionUri);
    panel.iconPath = vscode.Uri.joinPath(services.extensionUri, 'media', 'agent-seer.svg');
    this.register(panel.onDidDispose(() => this.dispose()));
    this.register(panel.webview.onDidReceiveMessage((m: unknown) => void this.onMessage(m)));
    // A record edited or re-judged while shown is shown again as it is now.
    this.register(services.harnesses.onDidChange(() => void this.refresh()));
    this.showPage();
  }

  private showPage(): void {
    this.ready = false;
    this.showsPage = true;
    this.panel.webview.html = pageHtml(this.panel.webview, this.services.extensionUri);
  }

  private showNotice(text: string): void {
    this.showsPage = false;
    this.panel.webview.html = `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none';"></head><body><p>${text}</p></body></html>`;
  }

  private static options(extensionUri: vscode.Uri): vscode.WebviewOptions & vscode.WebviewPanelOptions {
    return {
      enableScripts: true,
      enableFindWidget: true,
      localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media', 'scenario')],
    };
  }

  /** Shows a scenario in the panel of the active editor group, creating one when the group has none. */
  static async show(services: ExtensionServices, harness: LoadedHarness, recordId: string): Promise<ScenarioPanel> {
    const column = vscode.window.tabGroups.activeTabGroup.viewColumn;
    let p = [...ScenarioPanel.panels].find((x) => x.panel.viewColumn === column);
    if (!p) {
      const panel = vscode.window.createWebviewPanel(
        SCENARIO_VIEW_TYPE,
        'Scenario',
        { viewColumn: column, preserveFocus: false },
        ScenarioPanel.options(services.extensionUri),
      );
      p = new ScenarioPanel(panel, services);
    }
    await p.load(harness.dir, recordId);
    p.panel.reveal(undefined, false);
    return p;
  }

  /** Restores a panel VS Code kept across a reload from the state the page saved. */
  static async revive(panel: vscode.WebviewPanel, state: unknown, services: ExtensionServices): Promise<ScenarioPanel> {
    const p = new ScenarioPanel(panel, services);
    await services.harnesses.ready;
    if (isScenarioViewState(state)) await p.load(state.harnessDir, state.id);
    else p.showNotice('This scenario panel kept no state: open a scenario from the Harnesses view.');
    return p;
  }

  /** Every open scenario panel (tests read them). */
  static get open(): readonly ScenarioPanel[] {
    return [...ScenarioPanel.panels];
  }

  get webviewPanel(): vscode.WebviewPanel {
    return this.panel;
  }

  get isReady(): boolean {
    return this.ready;
  }

  /** The view model last sent to the page. */
  get lastModel(): ScenarioViewModel | undefined {
    return this.model;
  }

  /** What the page last reported it drew (read from its DOM in the browser). */
  get lastRendered(): ScenarioRendered | undefined {
    return this.rendered;
  }

  private async load(harnessDir: string, recordId: string): Promise<void> {
    this.harnessDir = harnessDir;
    this.recordId = recordId;
    await this.refresh();
  }

  /** Rebuilds the model from what is in memory now and sends it; says so when the scenario is gone. */
  private async refresh(): Promise<void> {
    const harness = this.services.harnesses.get(this.harnessDir);
    const record = harness?.records.find((r) => r.id === this.recordId);
    if (!harness || !record) {
      this.model = undefined;
      this.panel.title = 'Scenario (gone)';
      this.showNotice('This scenario is no longer in the workspace.');
      return;
    }
    const runs = await readRuns(harness.dir);
    for (const p of runs.problems) this.services.log.warn(`${p.file}: ${p.message}`);
    const spec = this.services.harnessTree.currentSpec(harness);
    this.model = scenarioViewModel({
      harnessDir: harness.dir,
      record,
      siblings: this.services.harnessTree.siblingsOf(harness),
      runs: runs.agents,
      ...(spec ? { spec } : {}),
    });
    this.panel.title = record.title;
    if (!this.showsPage) this.showPage();
    this.post();
  }

  private post(): void {
    if (!this.model || !this.ready) return;
    const message: ScenarioMessage = { type: 'scenario', model: this.model };
    void this.panel.webview.postMessage(message);
  }

  private async onMessage(raw: unknown): Promise<void> {
    const m = parseScenarioMessage(raw);
    if (!m) return;
    try {
      switch (m.type) {
        case 'ready':
          this.ready = true;
          this.post();
          return;
        case 'rendered':
          this.rendered = m;
          return;
        case 'navigate':
          await this.navigate(m.to);
          return;
        case 'openJson':
          await this.openJson(m.call);
          return;
      }
    } catch (err) {
      this.services.log.error(`Scenario panel: ${errorMessage(err)}`);
    }
  }

  /** Shows the previous or next scenario of the tree's order in this panel; false at either end. */
  async navigate(to: 'previous' | 'next'): Promise<boolean> {
    const id = to === 'previous' ? this.model?.position.previous : this.model?.position.next;
    if (!id) return false;
    await this.load(this.harnessDir, id);
    return true;
  }

  /** Opens the record file beside the panel, at the call (or the record's title). */
  async openJson(call: number | null): Promise<vscode.TextEditor | undefined> {
    const harness = this.services.harnesses.get(this.harnessDir);
    const record = harness?.records.find((r) => r.id === this.recordId);
    if (!harness || !record) return undefined;
    const file = recordFile(harness, record);
    const offset = recordCallOffset(await readFile(file, 'utf8'), call);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    const pos = doc.positionAt(offset);
    return vscode.window.showTextDocument(doc, { selection: new vscode.Range(pos, pos), viewColumn: vscode.ViewColumn.Beside, preview: true });
  }

  override dispose(): void {
    ScenarioPanel.panels.delete(this);
    super.dispose();
    this.panel.dispose();
  }
}

/** Lets VS Code restore open scenario panels after a window reload. */
export function registerScenarioPanel(services: ExtensionServices): vscode.Disposable {
  return vscode.window.registerWebviewPanelSerializer(SCENARIO_VIEW_TYPE, {
    deserializeWebviewPanel: async (panel, state) => {
      await ScenarioPanel.revive(panel, state, services);
    },
  });
}

/** "Open Scenario" on a scenario node (what clicking it does). */
export async function openScenario(services: ExtensionServices, target: unknown): Promise<ScenarioPanel | undefined> {
  const node = target as HarnessNode | undefined;
  if (node?.kind !== 'scenario') {
    void vscode.window.showInformationMessage('Agent Seer: open a scenario from the Harnesses view.');
    return undefined;
  }
  return ScenarioPanel.show(services, node.harness, node.record.id);
}

/** "Open Scenario JSON": the record file, one click from the tree. */
export async function openScenarioJson(services: ExtensionServices, target: unknown): Promise<void> {
  const node = target as HarnessNode | undefined;
  if (node?.kind !== 'scenario') return;
  await vscode.window.showTextDocument(vscode.Uri.file(recordFile(node.harness, node.record)), { preview: true });
}
