/** The MCP Specs tree, inline diagnostics and Snapshot Tools, in a trusted workspace. */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { SpecsNode } from '../../../../src/extension/specsTree';
import { activateApi } from '../../api';
import { screenshot, waitFor, workspaceRoot } from '../../helpers';

function label(api: Awaited<ReturnType<typeof activateApi>>, node: SpecsNode): string {
  const item = api.specsTree.getTreeItem(node);
  return typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
}

describe('MCP Specs tree', () => {
  it('lists the server definition and the spec file with its tools', async () => {
    const api = await activateApi();
    const roots = await waitFor(
      () => {
        const r = api.specsTree.getChildren();
        return r.length >= 2 ? r : undefined;
      },
      15_000,
      'tree roots',
    );
    const server = roots.find((n) => n.kind === 'server');
    const spec = roots.find((n) => n.kind === 'spec');
    assert.ok(server && server.kind === 'server');
    assert.equal(server.definition.name, 'fixture-echo');
    assert.equal(server.definition.transport, 'stdio');
    assert.equal(api.specsTree.getTreeItem(server).contextValue, 'agentSeer.server');
    assert.ok(spec && spec.kind === 'spec');
    assert.equal(label(api, spec), 'secure-filesystem-server');
    const tools = api.specsTree.getChildren(spec);
    assert.equal(tools.length, 14);
    const readFile = tools.find((t) => label(api, t) === 'read_text_file');
    assert.ok(readFile);
    const item = api.specsTree.getTreeItem(readFile);
    assert.equal(item.description, '3 params');
    // read_text_file's `path` has no description: a finding, so a warning icon and context.
    assert.equal(item.contextValue, 'agentSeer.tool.findings');
    assert.equal((item.iconPath as vscode.ThemeIcon).id, 'warning');
  });
});

describe('schema-complexity diagnostics', () => {
  const specFile = () => vscode.Uri.file(join(workspaceRoot(), 'specs', 'filesystem.json'));

  it('are published on the open spec file, at the offending parameter, with a code linking to its help section', async () => {
    const api = await activateApi();
    // Findings are for files open in an editor by default (agentSeer.lint.scope).
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(specFile()));
    const diags = await waitFor(
      () => {
        const d = vscode.languages.getDiagnostics(specFile()).filter((x) => x.source === 'Agent Seer');
        return d.length ? d : undefined;
      },
      15_000,
      'diagnostics on specs/filesystem.json',
    );
    const doc = await vscode.workspace.openTextDocument(specFile());
    const noDesc = diags.find((d) => (d.code as { value: string }).value === 'param-no-description');
    assert.ok(noDesc, JSON.stringify(diags.map((d) => d.code)));
    assert.equal(doc.getText(noDesc.range), '"path"');
    // A command link: the help page in Markdown preview at the code's section.
    const target = (noDesc.code as { target: vscode.Uri }).target;
    assert.equal(target.scheme, 'command');
    assert.equal(target.path, 'markdown.showPreview');
    const [page] = JSON.parse(decodeURIComponent(target.query)) as { path: string; fragment: string }[];
    assert.match(page?.path ?? '', /\/docs\/findings\.md$/);
    assert.equal(page?.fragment, 'param-no-description');
    assert.equal(api.diagnostics.get(specFile()).length, diags.length);
  });

  it('update as the file is edited (before it is saved)', async () => {
    const onDisk = readFileSync(specFile().fsPath, 'utf8');
    const doc = await vscode.workspace.openTextDocument(specFile());
    const editor = await vscode.window.showTextDocument(doc);
    const before = vscode.languages.getDiagnostics(specFile()).filter((d) => (d.code as { value: string }).value === 'contradictory-annotations');
    assert.equal(before.length, 0);
    // Make the first read-only tool also destructive: a contradiction the analysis must flag.
    // An editor edit, not a WorkspaceEdit: VS Code may save files a WorkspaceEdit touches.
    const at = doc.getText().indexOf('"readOnlyHint": true');
    assert.ok(at > 0);
    assert.ok(await editor.edit((b) => b.insert(doc.positionAt(at), '"destructiveHint": true, ')));
    assert.ok(doc.isDirty);
    const after = await waitFor(
      () => {
        const d = vscode.languages.getDiagnostics(specFile()).filter((x) => (x.code as { value: string }).value === 'contradictory-annotations');
        return d.length ? d : undefined;
      },
      10_000,
      'contradictory-annotations after the edit',
    );
    assert.equal(doc.getText(after[0]!.range), '"read_file"');
    await screenshot('diagnostics-after-edit');
    // Undo: the finding goes away again, and the file on disk was never touched.
    await vscode.commands.executeCommand('undo');
    await waitFor(
      () => vscode.languages.getDiagnostics(specFile()).every((x) => (x.code as { value: string }).value !== 'contradictory-annotations'),
      10_000,
      'the finding to go after undo',
    );
    assert.equal(readFileSync(specFile().fsPath, 'utf8'), onDisk);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });
});

describe('Snapshot Tools', () => {
  it('starts an approved stdio server in a trusted workspace and writes its snapshot, which the tree then shows', async () => {
    const api = await activateApi();
    assert.equal(vscode.workspace.isTrusted, true);
    const server = api.specsTree.getChildren().find((n) => n.kind === 'server');
    assert.ok(server && server.kind === 'server');
    // The confirmation is a modal dialog; the test approves the command the way a click would.
    await api.approval.approve(server.definition);
    const outcome = await vscode.commands.executeCommand<{ status: string; file?: string; tools?: number }>('agentSeer.snapshotTools', server);
    assert.equal(outcome?.status, 'written', JSON.stringify(outcome));
    const file = join(workspaceRoot(), '.agentseer', 'specs', 'fixture-echo.json');
    assert.equal(outcome.file, file);
    assert.ok(existsSync(file));
    const snap = JSON.parse(readFileSync(file, 'utf8')) as { tools: { name: string }[]; provenance: string };
    assert.deepEqual(snap.tools.map((t) => t.name).sort(), ['add', 'echo']);
    assert.match(snap.provenance, /fixture-echo/);
    const withTools = await waitFor(
      () => {
        const s = api.specsTree.getChildren().find((n) => n.kind === 'server');
        return s && s.kind === 'server' && s.snapshot ? s : undefined;
      },
      10_000,
      'the server node to show its snapshot',
    );
    assert.equal(api.specsTree.getChildren(withTools).length, 2);
    await vscode.commands.executeCommand('workbench.view.extension.agentSeer');
    await screenshot('specs-tree-after-snapshot');
  });
});
