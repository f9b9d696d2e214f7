/**
 * The scenario panel in the real host and browser: what it shows (read back from the page's DOM),
 * data that looks like HTML staying text, previous/next, "Open JSON" at a call, restore after a
 * reload; a failing record's icon in the tree; the menus' targets; the walkthrough.
 */
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { HarnessRecord } from '../../../../src/core/harness/format';
import type { HarnessNode } from '../../../../src/extension/harnessTree';
import { generateTargets } from '../../../../src/extension/menuContext';
import { SCENARIO_VIEW_TYPE, ScenarioPanel } from '../../../../src/extension/scenarioPanel';
import { activateApi } from '../../api';
import { EXTENSION_ID, generateOfflineHarness, screenshot, waitFor, workspaceRoot } from '../../helpers';

type ScenarioNode = Extract<HarnessNode, { kind: 'scenario' }>;
const harnessDir = () => join(workspaceRoot(), 'evals', 'secure-filesystem-server');
const recordsDir = () => join(harnessDir(), 'records');

/** The scenario nodes of the basic workspace's harness, in tree order. */
async function scenarios(): Promise<ScenarioNode[]> {
  const api = await activateApi();
  const server = api.harnessTree.getChildren().find((n) => n.kind === 'server' && n.name === 'secure-filesystem-server');
  assert.ok(server, 'the harness of the basic workspace');
  const walk = (n: HarnessNode): ScenarioNode[] => (n.kind === 'scenario' ? [n] : api.harnessTree.getChildren(n).flatMap(walk));
  return api.harnessTree.getChildren(server).flatMap(walk);
}

/** Writes a record file and waits until the tree has it. */
async function writeRecordFile(record: HarnessRecord): Promise<ScenarioNode> {
  const api = await activateApi();
  writeFileSync(join(recordsDir(), `${record.id}.json`), JSON.stringify(record, null, 2) + '\n');
  await api.harnesses.reload(harnessDir());
  return waitFor(async () => (await scenarios()).find((n) => n.record.id === record.id), 10_000, `record ${record.id} in the tree`);
}

/** Opens a scenario the way a click on its node does (the item's own command). */
async function openFromTree(node: ScenarioNode): Promise<ScenarioPanel> {
  const api = await activateApi();
  const item = api.harnessTree.getTreeItem(node);
  assert.equal(item.command?.command, 'agentSeer.openScenario', 'clicking a scenario opens the panel');
  const panel = await vscode.commands.executeCommand<ScenarioPanel | undefined>(item.command.command, ...(item.command.arguments ?? []));
  assert.ok(panel, 'a scenario panel');
  return panel;
}

describe('Scenario panel', () => {
  before(async function () {
    this.timeout(60_000);
    await activateApi();
    await generateOfflineHarness();
  });

  // The panels live in the extension's bundle (not this module's copy of the class): close them through the workbench.
  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('shows a scenario: turns, each call with arguments beside its mock output, checks, judgments; drawn by the page in the browser', async function () {
    this.timeout(90_000);
    const api = await activateApi();
    const run = api.harnessTree.getChildren(api.harnessTree.getChildren().find((n) => n.kind === 'server')).find((n) => n.kind === 'run')!;
    const judged = await vscode.commands.executeCommand<{ status: string }>('agentSeer.judge', run, { provider: { kind: 'offline' } });
    assert.equal(judged.status, 'done');
    const node = (await scenarios()).find((n) => n.record.expected_tools.length >= 2) ?? (await scenarios())[0]!;
    const panel = await openFromTree(node);
    assert.match(panel.webviewPanel.webview.html, /default-src 'none'; style-src [^;]+; script-src 'nonce-[A-Za-z0-9+/=]+';/);
    assert.doesNotMatch(panel.webviewPanel.webview.html, /unsafe-inline|unsafe-eval/);
    const rendered = await waitFor(() => panel.lastRendered?.id === node.record.id && panel.lastRendered, 20_000, 'the page to draw the scenario');
    const m = panel.lastModel!;
    assert.equal(rendered.title, node.record.title);
    assert.equal(rendered.callPairs, node.record.expected_tools.length, 'every call drawn with arguments and output side by side');
    assert.equal(m.calls.length, node.record.expected_tools.length);
    assert.deepEqual(m.calls[0]?.arguments, node.record.expected_tools[0]?.arguments);
    assert.deepEqual(m.calls[0]?.output, node.record.mock_outputs[0]?.output);
    assert.equal(m.judgments[0]?.judge, 'offline');
    assert.equal(m.judgments[0]?.argumentSubs.length, 6);
    assert.equal(m.checks.length, 5);
    assert.equal(panel.webviewPanel.title, node.record.title);
    await new Promise((r) => setTimeout(r, 800));
    await screenshot('scenario-panel');

    // Next, then previous, in the same panel.
    const next = m.position.next;
    if (next) {
      assert.equal(await panel.navigate('next'), true);
      await waitFor(() => panel.lastRendered?.id === next, 20_000, 'the next scenario drawn');
      assert.equal(await panel.navigate('previous'), true);
      await waitFor(() => panel.lastRendered?.id === node.record.id, 20_000, 'back to the first');
    }
    // "Open JSON" at call 0: the record file, the cursor on that call's name.
    const editor = await panel.openJson(0);
    assert.ok(editor);
    assert.equal(editor.document.uri.fsPath, api.harnessTree.getTreeItem(node).resourceUri?.fsPath);
    assert.match(editor.document.lineAt(editor.selection.active.line).text, new RegExp(`"name": "${node.record.expected_tools[0]!.name}"`));
    // The JSON stays one click from the tree: an inline action on the node.
    const json = (
      vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { contributes: { menus: Record<string, { command: string; group?: string }[]> } }
    ).contributes.menus['view/item/context']!.find((e) => e.command === 'agentSeer.openScenarioJson' && e.group?.startsWith('inline'));
    assert.ok(json, 'Open Scenario JSON is an inline action on scenario nodes');
  });

  it('renders a prompt and title holding <img onerror> and <script> as text in the browser: no element, no script', async function () {
    this.timeout(60_000);
    const [first] = await scenarios();
    assert.ok(first);
    const hostile = '<img src=x onerror="document.body.dataset.pwned=1"><script>document.body.dataset.pwned=2</script>';
    const record: HarnessRecord = {
      ...first.record,
      id: 'zz-hostile',
      title: `Hostile ${hostile}`,
      prompt: `Please ${hostile} read it`,
      expected_response: hostile,
      judgments: {},
    };
    delete record.judgments;
    const node = await writeRecordFile(record);
    try {
      const panel = await openFromTree(node);
      const rendered = await waitFor(() => panel.lastRendered?.id === 'zz-hostile' && panel.lastRendered, 20_000, 'the page to draw the hostile scenario');
      // The browser's textContent of the heading is the raw string: it was never parsed as HTML.
      assert.equal(rendered.title, `Hostile ${hostile}`);
      assert.equal(rendered.images, 0, 'no <img> element was created from data');
      assert.equal(rendered.scripts, 0, 'no <script> element was created from data');
      assert.equal(panel.lastModel?.prompt, record.prompt);
      await new Promise((r) => setTimeout(r, 800));
      await screenshot('scenario-panel-xss');
    } finally {
      rmSync(join(recordsDir(), 'zz-hostile.json'), { force: true });
      await (await activateApi()).harnesses.reload(harnessDir());
    }
  });

  it('is restored after a reload from the state the page kept (the serializer)', async function () {
    this.timeout(60_000);
    const api = await activateApi();
    const [node] = await scenarios();
    assert.ok(node);
    const panel = vscode.window.createWebviewPanel(SCENARIO_VIEW_TYPE, 'restored', vscode.ViewColumn.Active, {});
    const restored = await ScenarioPanel.revive(panel, { harnessDir: node.harness.dir, id: node.record.id }, api);
    try {
      await waitFor(() => restored.lastRendered?.id === node.record.id, 20_000, 'the restored page to draw its scenario');
      assert.equal(restored.lastModel?.title, node.record.title);
    } finally {
      restored.dispose();
    }
  });

  it('marks a record with a wrong-typed argument as failed in the tree, and says so when that scenario is judged', async function () {
    this.timeout(60_000);
    const api = await activateApi();
    const file = readdirSync(recordsDir())
      .map((f) => join(recordsDir(), f))
      .find((f) => (JSON.parse(readFileSync(f, 'utf8')) as HarnessRecord).expected_tools.some((c) => c.name === 'read_text_file'));
    assert.ok(file, 'a record calling read_text_file');
    const original = readFileSync(file, 'utf8');
    const record = JSON.parse(original) as HarnessRecord;
    try {
      record.expected_tools.find((c) => c.name === 'read_text_file')!.arguments.head = 'ten';
      delete record.judgments;
      const copy = { ...record, id: 'zz-wrong-type' };
      const node = await writeRecordFile(copy);
      const outcome = await vscode.commands.executeCommand<{
        status: string;
        result: { verdict?: { state: string; failures: string[]; score?: { value: number } } };
      }>('agentSeer.judge', node, { provider: { kind: 'offline' } });
      assert.equal(outcome.status, 'done');
      assert.equal(outcome.result.verdict?.state, 'fail', JSON.stringify(outcome.result));
      // The exact score alone would pass (it is over the threshold): the type error fails it.
      assert.ok((outcome.result.verdict?.score?.value ?? 0) >= 0.9, JSON.stringify(outcome.result.verdict?.score));
      const judgedNode = await waitFor(
        async () => (await scenarios()).find((n) => n.record.id === 'zz-wrong-type' && n.record.judgments),
        10_000,
        'the judged record',
      );
      const item = api.harnessTree.getTreeItem(judgedNode);
      const icon = item.iconPath as vscode.ThemeIcon;
      assert.equal(icon.id, 'error');
      assert.equal(icon.color?.id, 'testing.iconFailed');
      assert.match((item.tooltip as vscode.MarkdownString).value, /Failed/);
      assert.match((item.tooltip as vscode.MarkdownString).value, /head/);
      // Aggregates on the run node.
      const run = api.harnessTree.getChildren(api.harnessTree.getChildren().find((n) => n.kind === 'server')).find((n) => n.kind === 'run')!;
      assert.match(String(api.harnessTree.getTreeItem(run).description), /^\d+ failed/);

      await vscode.commands.executeCommand('workbench.view.extension.agentSeer');
      await api.harnessView.reveal(judgedNode, { select: true, focus: false, expand: false });
      await screenshot('harnesses-tree-verdicts');

      // Edited after judging: the judgment is outdated.
      const judged = JSON.parse(readFileSync(join(recordsDir(), 'zz-wrong-type.json'), 'utf8')) as HarnessRecord;
      judged.expected_tools.find((c) => c.name === 'read_text_file')!.arguments.head = 10;
      const edited = await writeRecordFile(judged);
      const after = api.harnessTree.getTreeItem((await scenarios()).find((n) => n.record.id === edited.record.id)!);
      assert.equal((after.iconPath as vscode.ThemeIcon).id, 'history');
    } finally {
      rmSync(join(recordsDir(), 'zz-wrong-type.json'), { force: true });
      writeFileSync(file, original);
      await api.harnesses.reload(harnessDir());
    }
  });

  it('offers Generate Evals on specs and MCP configs only, not on package.json', async function () {
    const api = await activateApi();
    const pkg = join(workspaceRoot(), 'package.json');
    writeFileSync(pkg, '{ "name": "not-a-spec", "version": "1.0.0" }\n');
    try {
      await api.model.rescan();
      const targets = generateTargets(api.model);
      assert.ok(targets.includes(vscode.Uri.file(join(workspaceRoot(), 'specs', 'filesystem.json')).path), JSON.stringify(targets));
      assert.ok(targets.includes(vscode.Uri.file(join(workspaceRoot(), '.vscode', 'mcp.json')).path), JSON.stringify(targets));
      assert.ok(!targets.includes(vscode.Uri.file(pkg).path));
      const menus = (
        vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { contributes: { menus: Record<string, { command: string; when?: string }[]> } }
      ).contributes.menus;
      assert.deepEqual(
        menus['explorer/context']!.filter((e) => e.command === 'agentSeer.generateEvals').map((e) => e.when),
        ['resourcePath in agentSeer.generateTargets'],
      );
      assert.ok(menus.commandPalette!.some((e) => e.command === 'agentSeer.snapshotTools' && e.when === 'isWorkspaceTrusted'));
    } finally {
      rmSync(pkg, { force: true });
    }
  });

  it('first use: Try the Example Spec generates a harness offline; Add a Server opens .vscode/mcp.json as it is', async function () {
    this.timeout(90_000);
    const api = await activateApi();
    const snapshot = join(workspaceRoot(), '.agentseer', 'specs', 'example-filesystem.json');
    const harness = join(workspaceRoot(), 'evals', 'example-filesystem');
    try {
      const outcome = await vscode.commands.executeCommand<{ status: string; outputDir: string; counts: { records: number } }>('agentSeer.generateExample');
      assert.equal(outcome.status, 'complete', JSON.stringify(outcome).slice(0, 300));
      assert.equal(outcome.outputDir, harness);
      assert.ok(outcome.counts.records > 0);
      assert.ok(
        api.model.specs.some((s) => s.file === snapshot),
        'the example spec is indexed',
      );
    } finally {
      rmSync(harness, { recursive: true, force: true });
      rmSync(snapshot, { force: true });
      await api.harnesses.rescan();
      await api.model.rescan();
    }
    const mcpJson = join(workspaceRoot(), '.vscode', 'mcp.json');
    const before = readFileSync(mcpJson, 'utf8');
    const editor = await vscode.commands.executeCommand<vscode.TextEditor>('agentSeer.addServer');
    assert.equal(editor.document.uri.fsPath, mcpJson);
    assert.equal(readFileSync(mcpJson, 'utf8'), before, 'an existing mcp.json is opened, never rewritten');
  });

  it('opens the walkthrough', async function () {
    this.timeout(30_000);
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', `${EXTENSION_ID}#agentSeer.gettingStarted`, false);
    const tab = await waitFor(() => vscode.window.tabGroups.activeTabGroup.activeTab, 10_000, 'a tab');
    assert.match(tab.label, /Welcome|Walkthrough|Get started/i);
    await new Promise((r) => setTimeout(r, 1500));
    await screenshot('walkthrough');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });
});
