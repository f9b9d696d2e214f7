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
