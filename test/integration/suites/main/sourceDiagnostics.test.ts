/**
 * Findings where tools are defined: a TypeScript and a Python server source (real fixture
 * sources) next to their snapshots, diagnostics at the right lines once opened, a quick fix
 * applied, the help link, and nothing for files that are not open (the default scope).
 */
import * as assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as vscode from 'vscode';
import { activateApi } from '../../api';
import { EXTENSION_ID, screenshot, waitFor, workspaceRoot } from '../../helpers';

const TS_SOURCE = 'typescript/modelcontextprotocol__servers__src_sequentialthinking_index.ts';
const PY_SOURCE = 'python/modelcontextprotocol__servers__src_time_src_mcp_server_time_server.py';

function sharedDir(): string {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  if (!ext) throw new Error('extension not found');
  return process.env.AGENT_SEER_SHARED ?? resolve(ext.extensionPath, '..', 'shared');
}

const folder = (): string => join(workspaceRoot(), 'server-src');
const uri = (name: string): vscode.Uri => vscode.Uri.file(join(folder(), name));
const ours = (u: vscode.Uri): vscode.Diagnostic[] => vscode.languages.getDiagnostics(u).filter((d) => d.source === 'Agent Seer');
const codeOf = (d: vscode.Diagnostic): string => String((d.code as { value: string }).value);

async function diagnosticsWith(u: vscode.Uri, code: string): Promise<vscode.Diagnostic[]> {
  return waitFor(
    () => {
      const found = ours(u).filter((d) => codeOf(d) === code);
      return found.length ? found : undefined;
    },
    30_000,
    `${code} on ${u.fsPath}`,
  );
}

describe('findings in server sources', () => {
  before(async () => {
    const api = await activateApi();
    // The copied sources do not compile here (no node_modules): keep the TypeScript extension's
    // errors out of Problems and the screenshot. Restored in after().
    await vscode.workspace.getConfiguration('typescript').update('validate.enable', false, vscode.ConfigurationTarget.Workspace);
    const shared = sharedDir();
    mkdirSync(join(folder(), 'snapshots'), { recursive: true });
    copyFileSync(join(shared, 'fixtures', 'configs', 'sources', TS_SOURCE), join(folder(), 'index.ts'));
    copyFileSync(join(shared, 'fixtures', 'configs', 'sources', PY_SOURCE), join(folder(), 'server.py'));
    copyFileSync(join(shared, 'fixtures', 'specs', 'sequential-thinking.json'), join(folder(), 'snapshots', 'sequential-thinking.json'));
    copyFileSync(join(shared, 'fixtures', 'specs', 'time-official.json'), join(folder(), 'snapshots', 'time-official.json'));
    // A tool whose parameter has no description: the quick fix's subject.
    writeFileSync(
      join(folder(), 'lookup.ts'),
      'server.registerTool(\n  "lookup",\n  { description: "Weather in a city.", inputSchema: { city: z.string() } },\n  handler,\n);\n',
    );
    writeFileSync(
      join(folder(), 'snapshots', 'lookup.json'),
      JSON.stringify({
        tools: [{ name: 'lookup', description: 'Weather in a city.', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }],
      }),
    );
    // A rescan rather than the file watcher: watcher events for a new folder are not prompt here.
    await api.model.rescan();
    await waitFor(() => api.model.specs.filter((s) => s.file.startsWith(folder())).length === 3, 20_000, 'the three snapshots indexed');
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.getConfiguration('typescript').update('validate.enable', undefined, vscode.ConfigurationTarget.Workspace);
    rmSync(folder(), { recursive: true, force: true });
    const api = await activateApi();
    await api.model.rescan();
    await waitFor(() => api.model.specs.every((s) => !s.file.startsWith(folder())), 20_000, 'the snapshots gone from the index');
  });

  it('only files open in an editor get findings by default (agentSeer.lint.scope = openFiles), and lose them when closed', async () => {
    // Give the extension time to lint whatever it would lint on its own.
    await new Promise((r) => setTimeout(r, 2_000));
    assert.deepEqual(ours(uri('index.ts')), [], 'a source nobody opened');
    assert.deepEqual(ours(uri('snapshots/sequential-thinking.json')), [], 'a snapshot nobody opened');
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri('snapshots/sequential-thinking.json')));
    await diagnosticsWith(uri('snapshots/sequential-thinking.json'), 'many-params');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    await waitFor(() => ours(uri('snapshots/sequential-thinking.json')).length === 0, 10_000, 'the closed snapshot to lose its findings');
  });

  it('TypeScript: many-params on the registerTool name (line 30), one sentence, linked to its help section', async () => {
    const doc = await vscode.workspace.openTextDocument(uri('index.ts'));
    const editor = await vscode.window.showTextDocument(doc);
    const [many] = await diagnosticsWith(uri('index.ts'), 'many-params');
    assert.ok(many);
    assert.equal(many.range.start.line, 29);
    assert.equal(many.range.start.character, 3);
    assert.equal(doc.getText(many.range), 'sequentialthinking');
    assert.equal(many.message, 'Tool "sequentialthinking" takes 9 parameters (more than 8).');
    assert.equal(many.severity, vscode.DiagnosticSeverity.Warning);
    const target = (many.code as { target: vscode.Uri }).target;
    assert.equal(target.scheme, 'command');
    assert.equal(target.path, 'markdown.showPreview');
    const [page] = JSON.parse(decodeURIComponent(target.query)) as { path: string; fragment: string }[];
    assert.equal(page?.fragment, 'many-params');
    assert.match(page?.path ?? '', /\/docs\/findings\.md$/);

    // The hover says why.
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, many.range.start);
    const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : ''))).join('\n');
    assert.match(text, /parameter density, not tool count/);

    // The screenshot for docs/editor.md: the finding on the name, with the Problems panel open.
    editor.revealRange(many.range, vscode.TextEditorRevealType.InCenter);
    editor.selection = new vscode.Selection(many.range.start, many.range.start);
    await vscode.commands.executeCommand('workbench.actions.view.problems');
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('editor.action.showHover');
    await new Promise((r) => setTimeout(r, 1_000));
    await screenshot('source-diagnostics');
  });

  it('Python: free-text-format on the "time" key of a low-level Tool(...) schema (line 196)', async () => {
    const doc = await vscode.workspace.openTextDocument(uri('server.py'));
    await vscode.window.showTextDocument(doc);
    const found = await diagnosticsWith(uri('server.py'), 'free-text-format');
    assert.deepEqual(
      found.map((d) => [d.range.start.line + 1, d.range.start.character + 1, doc.getText(d.range)]),
      [[196, 26, 'time']],
    );
    assert.equal(found[0]?.severity, vscode.DiagnosticSeverity.Information);
  });

  it('a quick fix adds a description stub, and the finding goes once the file is saved', async () => {
    const doc = await vscode.workspace.openTextDocument(uri('lookup.ts'));
    await vscode.window.showTextDocument(doc);
    const [missing] = await diagnosticsWith(uri('lookup.ts'), 'param-no-description');
    assert.ok(missing);
    assert.equal(doc.getText(missing.range), 'city');
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, missing.range);
    const titles = actions.map((a) => a.title);
    assert.ok(titles.includes('Ignore param-no-description here'), titles.join(', '));
    assert.ok(titles.includes('Turn off param-no-description in workspace settings'), titles.join(', '));
    const stub = actions.find((a) => a.title === 'Add a description for "city"');
    assert.ok(stub?.edit, titles.join(', '));
    assert.ok(await vscode.workspace.applyEdit(stub.edit));
    assert.equal(doc.lineAt(2).text, '  { description: "Weather in a city.", inputSchema: { city: z.string().describe("TODO") } },');
    await doc.save();
    // The snapshot still says "no description" until it is taken again: the finding stays, which
    // is honest; the ignore comment is what silences it in source.
    const ignore = (await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, missing.range)).find(
      (a) => a.title === 'Ignore param-no-description here',
    );
    assert.ok(ignore?.edit);
    assert.ok(await vscode.workspace.applyEdit(ignore.edit));
    await doc.save();
    await waitFor(() => ours(doc.uri).every((d) => codeOf(d) !== 'param-no-description'), 15_000, 'the ignored finding to go');
    assert.match(doc.getText(), /\/\/ agent-seer-ignore param-no-description\n {2}\{ description/);
  });

  it('agentSeer.lint.severity changes or turns off a code; scope = workspace lints files nobody opened', async () => {
    const config = vscode.workspace.getConfiguration('agentSeer');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await waitFor(() => ours(uri('server.py')).length === 0, 15_000, 'findings of the closed server.py to go');
    try {
      await config.update('lint.scope', 'workspace', vscode.ConfigurationTarget.Workspace);
      await config.update('lint.severity', { 'many-params': 'hint', 'gemini-schema': 'off' }, vscode.ConfigurationTarget.Workspace);
      await waitFor(
        () => ours(uri('index.ts')).some((d) => codeOf(d) === 'many-params' && d.severity === vscode.DiagnosticSeverity.Hint),
        15_000,
        'many-params as a hint on the closed index.ts',
      );
      await diagnosticsWith(uri('server.py'), 'free-text-format');
      assert.equal(ours(uri('index.ts')).filter((d) => codeOf(d) === 'gemini-schema').length, 0);
      // The quick fix's command writes the setting.
      await vscode.commands.executeCommand('agentSeer.lint.turnOffCode', 'free-text-format', uri('server.py'));
      assert.deepEqual(config.inspect('lint.severity')?.workspaceValue, { 'many-params': 'hint', 'gemini-schema': 'off', 'free-text-format': 'off' });
      await waitFor(() => ours(uri('server.py')).every((d) => codeOf(d) !== 'free-text-format'), 15_000, 'free-text-format turned off');
    } finally {
      await config.update('lint.scope', undefined, vscode.ConfigurationTarget.Workspace);
      await config.update('lint.severity', undefined, vscode.ConfigurationTarget.Workspace);
    }
    await waitFor(() => ours(uri('index.ts')).length === 0, 15_000, 'back to open files only');
  });

  it('the help link opens docs/findings.md in Markdown preview', async () => {
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri('index.ts')));
    const [many] = await diagnosticsWith(uri('index.ts'), 'many-params');
    const target = (many!.code as { target: vscode.Uri }).target;
    const [page] = JSON.parse(decodeURIComponent(target.query)) as { path: string; fragment: string }[];
    await vscode.commands.executeCommand(target.path, vscode.Uri.file(page!.path).with({ fragment: page!.fragment }));
    const tab = await waitFor(
      () =>
        vscode.window.tabGroups.all
          .flatMap((g) => g.tabs)
          .find((t) => t.input instanceof vscode.TabInputWebview && /markdown\.preview/.test(t.input.viewType) && /findings\.md/.test(t.label)),
      15_000,
      'the Markdown preview of findings.md',
    );
    assert.ok(tab);
    // The preview renders after the tab opens.
    await new Promise((r) => setTimeout(r, 3_000));
    await screenshot('finding-help-preview');
  });
});
