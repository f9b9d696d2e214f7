/**
 * In a trusted workspace too: folders the settings name stay inside the workspace, and a server
 * approved once is asked about again when what it runs with changes.
 */
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import { activateApi } from '../../api';
import { waitFor, workspaceRoot } from '../../helpers';

describe('folders and approvals in a trusted workspace', () => {
  afterEach(async () => {
    const c = vscode.workspace.getConfiguration('agentSeer');
    await c.update('harnessFolder', undefined, vscode.ConfigurationTarget.Workspace);
    await c.update('snapshotFolder', undefined, vscode.ConfigurationTarget.Workspace);
  });

  it('Generate Evals refuses a harness folder outside the workspace and writes nothing there', async function () {
    this.timeout(30_000);
    await vscode.workspace.getConfiguration('agentSeer').update('harnessFolder', '../escape', vscode.ConfigurationTarget.Workspace);
    const spec = vscode.Uri.file(join(workspaceRoot(), 'specs', 'filesystem.json'));
    const outcome = await vscode.commands.executeCommand<{ status: string; message?: string }>('agentSeer.generateEvals', spec, {
      provider: { kind: 'offline' },
    });
    assert.equal(outcome?.status, 'failed');
    assert.match(outcome.message ?? '', /agentSeer\.harnessFolder "\.\.\/escape" leads outside/);
    assert.equal(existsSync(join(dirname(workspaceRoot()), 'escape')), false);
  });

  it('Snapshot Tools refuses a snapshot folder outside the workspace before starting anything', async function () {
    this.timeout(30_000);
    const api = await activateApi();
    await vscode.workspace.getConfiguration('agentSeer').update('snapshotFolder', '../escape-specs', vscode.ConfigurationTarget.Workspace);
    const server = await waitFor(() => api.specsTree.getChildren().find((n) => n.kind === 'server'), 15_000, 'the server node');
    assert.ok(server.kind === 'server');
    const outcome = await vscode.commands.executeCommand<{ status: string; message?: string }>('agentSeer.snapshotTools', server);
    assert.equal(outcome?.status, 'failed');
    assert.match(outcome.message ?? '', /agentSeer\.snapshotFolder "\.\.\/escape-specs" leads outside/);
    assert.equal(existsSync(join(dirname(workspaceRoot()), 'escape-specs')), false);
  });

  it('an approved server is not approved any more once its environment changes', async () => {
    const api = await activateApi();
    const server = await waitFor(() => api.specsTree.getChildren().find((n) => n.kind === 'server'), 15_000, 'the server node');
    assert.ok(server.kind === 'server');
    await api.approval.approve(server.definition);
    assert.equal(api.approval.isApproved(server.definition), true);
    const changed = { ...server.definition, env: { ...server.definition.env, NODE_OPTIONS: '--require ./evil.js' } };
    assert.equal(api.approval.isApproved(changed), false);
    assert.equal(api.approval.isApproved({ ...server.definition, headers: { Authorization: 'Bearer x' } }), false);
  });
});
