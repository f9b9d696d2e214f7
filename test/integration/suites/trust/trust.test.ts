import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { activateApi } from '../../api';
import { workspaceRoot } from '../../helpers';

/** Written by the untrusted workspace's server script if anything ever starts it. */
export const MARKER = 'SERVER-WAS-STARTED.marker';

describe('workspace trust', () => {
  it('opens the untrusted fixture workspace', () => {
    assert.ok(existsSync(join(workspaceRoot(), '.vscode', 'mcp.json')));
  });

  it('the workspace is not trusted', () => {
    assert.equal(vscode.workspace.isTrusted, false);
  });

  it('never starts the workspace server', () => {
    assert.equal(existsSync(join(workspaceRoot(), MARKER)), false, 'the untrusted server was started');
  });
});

describe('Snapshot Tools in an untrusted workspace', () => {
  it('refuses to start the server even when its command was approved before', async () => {
    const api = await activateApi();
    const server = api.specsTree.getChildren().find((n) => n.kind === 'server');
    assert.ok(server && server.kind === 'server', 'the untrusted server definition is listed (reading is allowed)');
    await api.approval.approve(server.definition);
    const outcome = await vscode.commands.executeCommand<{ status: string }>('agentSeer.snapshotTools', server);
    assert.equal(outcome?.status, 'untrusted');
    // Give a wrongly started process time to write its marker before checking.
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(existsSync(join(workspaceRoot(), MARKER)), false, 'the untrusted server was started');
    assert.equal(existsSync(join(workspaceRoot(), '.agentseer')), false, 'nothing was written');
  });
});

describe('Agent mode servers in an untrusted workspace', () => {
  it('offers no MCP server definitions, refuses to resolve one, and refuses to serve a scenario', async function () {
    this.timeout(60_000);
    const api = await activateApi();
    // Offline generation is allowed untrusted: a harness exists, and still nothing is offered.
    const spec = vscode.Uri.file(join(workspaceRoot(), 'specs', 'notes.json'));
    const generated = await vscode.commands.executeCommand<{ status: string; outputDir: string }>('agentSeer.generateEvals', spec, {
      provider: { kind: 'offline' },
    });
    assert.equal(generated?.status, 'complete');
    await api.harnesses.rescan();
    const harness = api.harnesses.all.find((h) => h.dir === generated.outputDir);
    assert.ok(harness && harness.records.length > 0, 'the harness is loaded');
    const cts = new vscode.CancellationTokenSource();
    const { provider } = api.agentModeServers;
    assert.deepEqual(await provider.provideMcpServerDefinitions(cts.token), []);
    const forged = new vscode.McpStdioServerDefinition('forged', process.execPath, [join(workspaceRoot(), 'servers', 'create-marker.js')]);
    assert.equal(await provider.resolveMcpServerDefinition?.(forged, cts.token), undefined);
    const served = await vscode.commands.executeCommand('agentSeer.serveScenario', { harnessDir: harness.dir, scenarioId: harness.records[0]!.id });
    assert.equal(served, undefined);
    assert.deepEqual(await provider.provideMcpServerDefinitions(cts.token), []);
    cts.dispose();
  });
});
