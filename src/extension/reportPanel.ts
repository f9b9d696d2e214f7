/**
 * "Open Report": the HTML report in a webview. Strict CSP with a fresh nonce, the page script
 * loaded from the extension's dist/, theme colours from VS Code's CSS variables, and the data
 * sent by message after the page says it is ready (never spliced into the page).
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { findHarnessSpec } from '../core/harness/specLookup';
import { readRuns } from '../core/agents/readRuns';
import { analyzeHarnesses, type HarnessInput } from '../core/report/analyze';
import { isReadyMessage, isReportViewState, type ToWebview } from '../core/report/protocol';
import { renderHtml } from '../core/report/render/html';
import type { ReportModel } from '../core/report/schema';
import type { LoadedHarness } from './harnessModel';
import type { HarnessNode } from './harnessTree';
import { Disposable } from './lifecycle';
import { errorMessage, showError } from './log';
import { REPORT_VIEW_TYPE } from './reportSerializer';
import type { ExtensionServices } from './services';

export { REPORT_VIEW_TYPE };

/** Builds the report model for some harnesses (specs found as the judge finds them). */
export async function buildReport(harnesses: readonly LoadedHarness[]): Promise<ReportModel> {
  const inputs: HarnessInput[] = [];
  for (const h of harnesses) {
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(h.dir));
    const found = await findHarnessSpec(h.dir, h.manifest, { cwd: folder?.uri.fsPath ?? h.dir });
    // The agents' runs feed the leaderboard, as on the command line.
    const runs = await readRuns(h.dir);
    inputs.push({
      dir: h.dir,
      records: h.records,
      runs: runs.agents,
      ...(h.manifest ? { manifest: h.manifest } : {}),
      ...(found.ok ? { spec: found.spec } : {}),
    });
  }
  return analyzeHarnesses(inputs);
}

export class ReportPanel extends Disposable {
  private static current: ReportPanel | undefined;
  private model: ReportModel | undefined;
  private sources: string[] = [];
  private ready = false;

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly extensionUri: vscode.Uri,
  ) {
    super();
    this.register(panel.onDidDispose(() => this.dispose()));
    this.register(
      panel.webview.onDidReceiveMessage((m: unknown) => {
        // Only the page's handshake is expected; anything else is ignored.
        if (!isReadyMessage(m)) return;
        this.ready = true;
        this.post();
      }),
    );
  }

  private static options(extensionUri: vscode.Uri): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    return { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist')] };
  }

  /** Shows (or reuses) the panel with a model built from `sources`. Returns the panel, for tests. */
  static show(extensionUri: vscode.Uri, model: ReportModel, title: string, sources: string[]): ReportPanel {
    if (!ReportPanel.current) {
      const panel = vscode.window.createWebviewPanel(REPORT_VIEW_TYPE, title, vscode.ViewColumn.Active, ReportPanel.options(extensionUri));
      ReportPanel.current = new ReportPanel(panel, extensionUri);
    }
    const p = ReportPanel.current;
    p.panel.title = title;
    p.model = model;
    p.sources = sources;
    p.render();
    p.panel.reveal();
    return p;
  }

  /**
   * Restores a panel VS Code kept across a reload: the page saved which harness folders it
   * showed; the report is built again from what is on disk now.
   */
  static async revive(panel: vscode.WebviewPanel, state: unknown, services: ExtensionServices): Promise<ReportPanel> {
    panel.webview.options = ReportPanel.options(services.extensionUri);
    ReportPanel.current?.dispose();
    const p = new ReportPanel(panel, services.extensionUri);
    ReportPanel.current = p;
    await services.harnesses.ready;
    const wanted = isReportViewState(state) ? state.sources : [];
    const harnesses = wanted.length ? services.harnesses.all.filter((h) => wanted.includes(h.dir)) : services.harnesses.all;
    p.sources = harnesses.map((h) => h.dir);
    if (!harnesses.length) {
      panel.webview.html = '<!DOCTYPE html><html><body><p>The harnesses of this report are gone.</p></body></html>';
      return p;
    }
    p.model = await buildReport(harnesses);
    p.render();
    return p;
  }

  /** The open panel, if any (tests read its state). */
  static get open(): ReportPanel | undefined {
    return ReportPanel.current;
  }

  get webviewPanel(): vscode.WebviewPanel {
    return this.panel;
  }

  get isReady(): boolean {
    return this.ready;
  }

  /** The harness folders the report shows. */
  get reportSources(): readonly string[] {
    return this.sources;
  }

  private render(): void {
    if (!this.model) return;
    const webview = this.panel.webview;
    this.ready = false;
    webview.html = renderHtml(this.model, {
      nonce: randomBytes(16).toString('base64'),
      cspSource: webview.cspSource,
      script: { src: webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'report.js')).toString() },
      data: 'message',
    });
  }

  private post(): void {
    if (!this.model || !this.ready) return;
    const message: ToWebview = { type: 'report', model: this.model, sources: this.sources };
    void this.panel.webview.postMessage(message);
  }

  override dispose(): void {
    if (ReportPanel.current === this) ReportPanel.current = undefined;
    super.dispose();
    this.panel.dispose();
  }
}

/** The command: a run node reports that run; otherwise every harness in the workspace. */
export async function openReport(services: ExtensionServices, target: unknown): Promise<ReportPanel | undefined> {
  const node = target as HarnessNode | undefined;
  await services.harnesses.ready;
  const harnesses = node && 'harness' in node ? [node.harness] : node?.kind === 'server' ? node.runs : services.harnesses.all;
  if (!harnesses.length) {
    void vscode.window.showInformationMessage('No harnesses to report on. Generate evals first.');
    return undefined;
  }
  try {
    const model = await buildReport(harnesses);
    const names = [...new Set(harnesses.map((h) => h.manifest?.spec.name ?? vscode.workspace.asRelativePath(h.dir)))];
    return ReportPanel.show(
      services.extensionUri,
      model,
      `Agent Seer report: ${names.join(', ')}`,
      harnesses.map((h) => h.dir),
    );
  } catch (err) {
    void showError(services.log, `Agent Seer: cannot build the report: ${errorMessage(err)}`);
    return undefined;
  }
}
