/** Judge, inline judge failures, scores in the tree, and the report webview, on a harness the suite makes first. */
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { HarnessNode } from '../../../../src/extension/harnessTree';
import { REPORT_VIEW_TYPE, ReportPanel } from '../../../../src/extension/reportPanel';
import { activateApi } from '../../api';
import { generateOfflineHarness, screenshot, waitFor, workspaceRoot } from '../../helpers';

const recordsDir = () => join(workspaceRoot(), 'evals', 'secure-filesystem-server', 'records');

describe('Judge', () => {
  before(async function () {
    this.timeout(60_000);
    await activateApi();
    await generateOfflineHarness();
  });

  it('judges a run offline: a broken argument shows inline at that argument, scores show in the tree', async function () {
    this.timeout(60_000);
    const api = await activateApi();
    // Break one record the way a bad generator would: a string where the schema wants a number.
    const file = readdirSync(recordsDir())
      .map((f) => join(recordsDir(), f))
      .find((f) => JSON.parse(readFileSync(f, 'utf8')).expected_tools.some((c: { name: string }) => c.name === 'read_text_file'));
    assert.ok(file, 'a record calling read_text_file');
    const record = JSON.parse(readFileSync(file, 'utf8')) as { id: string; expected_tools: { name: string; arguments: Record<string, unknown> }[] };
    const call = record.expected_tools.find((c) => c.name === 'read_text_file')!;
    call.arguments.head = 'ten';
    writeFileSync(file, JSON.stringify(record, null, 2) + '\n');
    await api.harnesses.rescan();

    const run = api.harnessTree.getChildren(api.harnessTree.getChildren()[0]).find((n) => n.kind === 'run');
    assert.ok(run);
    const outcome = await vscode.commands.executeCommand<{ status: string; judgeId: string }>('agentSeer.judge', run, { provider: { kind: 'offline' } });
    assert.equal(outcome.status, 'done', JSON.stringify(outcome));
    assert.equal(outcome.judgeId, 'offline');

    const uri = vscode.Uri.file(file);
    const diags = await waitFor(
      () => {
        const d = vscode.languages.getDiagnostics(uri).filter((x) => x.source === 'Agent Seer judge');
        return d.length ? d : undefined;
      },
      10_000,
      'judge diagnostics on the broken record',
    );
    const typeDiag = diags.find((d) => d.code === 'arguments.type');
    assert.ok(typeDiag, JSON.stringify(diags.map((d) => [d.code, d.message])));
    const doc = await vscode.workspace.openTextDocument(uri);
    assert.equal(doc.getText(typeDiag.range), '"head"');
    assert.match(typeDiag.message, /^type compliance /);

    // Scores on scenario nodes; lowest first on demand sorts them by score. The broken record is below 1,
    // but not necessarily lowest: the offline harness has values the exact judge finds ungrounded.
    assert.equal(await vscode.commands.executeCommand('agentSeer.toggleLowestFirst'), true);
    const freshRun = api.harnessTree.getChildren(api.harnessTree.getChildren()[0]).find((n) => n.kind === 'run')!;
    const scenarios = api.harnessTree.getChildren(freshRun) as Extract<HarnessNode, { kind: 'scenario' }>[];
    assert.ok(scenarios.length > 1);
    const described = scenarios.map((s) => String(api.harnessTree.getTreeItem(s).description));
    const shown = described.map((d) => Number(/^exact (\d\.\d+) · /.exec(d)?.[1]));
    assert.deepEqual(
      shown,
      [...shown].sort((a, b) => a - b),
      'lowest first',
    );
    const broken = scenarios.findIndex((s) => s.record.id === record.id);
    assert.match(described[broken] ?? '', /^exact 0\.\d+ · /);
    assert.match(described[described.length - 1] ?? '', /^exact 1\.00 · /);
    await vscode.commands.executeCommand('vscode.open', uri);
    await screenshot('judge-failure-inline');
    assert.equal(await vscode.commands.executeCommand('agentSeer.toggleLowestFirst'), false);
  });

  it('opens the report in a webview whose script runs under the CSP and receives the data by message', async function () {
    this.timeout(60_000);
    const api = await activateApi();
    const run = api.harnessTree.getChildren(api.harnessTree.getChildren()[0]).find((n) => n.kind === 'run');
    const panel = await vscode.commands.executeCommand<ReportPanel | undefined>('agentSeer.openReport', run);
    assert.ok(panel, 'a report panel');
    const html = panel.webviewPanel.webview.html;
    // The CSP meta tag (quotes are HTML-escaped inside the attribute).
    assert.match(html, /default-src &#39;none&#39;; script-src &#39;nonce-[A-Za-z0-9+/=]+&#39;;/);
    assert.doesNotMatch(html, /unsafe-inline|unsafe-eval/);
    assert.doesNotMatch(html, /id="report-data"/, 'data is not embedded in a webview');
    // The page script posts "ready" only if it loaded and ran under the CSP.
    await waitFor(() => panel.isReady, 20_000, 'the report page to say it is ready');
    assert.deepEqual(panel.reportSources, [(run as Extract<HarnessNode, { kind: 'run' }>).harness.dir]);
    await new Promise((r) => setTimeout(r, 1500));
    await screenshot('report-webview');
  });

  it('restores a report panel after a reload from the state the page kept (the serializer)', async function () {
    this.timeout(60_000);
    const api = await activateApi();
    const run = api.harnessTree.getChildren(api.harnessTree.getChildren()[0]).find((n) => n.kind === 'run') as Extract<HarnessNode, { kind: 'run' }>;
    // What VS Code does on reload: a new panel of our view type, handed to the serializer with the saved state.
    const panel = vscode.window.createWebviewPanel(REPORT_VIEW_TYPE, 'restored', vscode.ViewColumn.Active, {});
    const restored = await ReportPanel.revive(panel, { sources: [run.harness.dir] }, api);
    assert.deepEqual(restored.reportSources, [run.harness.dir]);
    assert.match(panel.webview.html, /script-src &#39;nonce-/);
    await waitFor(() => restored.isReady, 20_000, 'the restored page to say it is ready');
    // A state that is not ours falls back to every harness in the workspace.
    const other = vscode.window.createWebviewPanel(REPORT_VIEW_TYPE, 'restored 2', vscode.ViewColumn.Active, {});
    const fallback = await ReportPanel.revive(other, { sources: 'nope' }, api);
    assert.deepEqual(
      [...fallback.reportSources],
      api.harnesses.all.map((h) => h.dir),
    );
    fallback.dispose();
  });
});
